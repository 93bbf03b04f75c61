import { type ReactNode, useEffect, useId, useRef } from 'react'
import { Icon } from './Icon'

/**
 * A native modal `<dialog>`: the browser traps focus, Escape closes it, and focus returns to
 * the control that opened it.
 */
export function Dialog(props: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  const { onClose } = props
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    const opener = document.activeElement as HTMLElement | null
    dialog.showModal()
    // showModal() focuses the first focusable element (the close button); the first field is
    // where a keyboard user wants to be.
    dialog
      .querySelector<HTMLElement>('.dialog-body input:not([type=checkbox]), .dialog-body textarea')
      ?.focus()
    // StrictMode mounts twice: a close queued by the first cleanup arrives after the second
    // showModal(), when the dialog is open again, and must not close it.
    const closed = () => {
      if (!dialog.open) onClose()
    }
    dialog.addEventListener('close', closed)
    return () => {
      dialog.removeEventListener('close', closed)
      if (dialog.open) dialog.close()
      opener?.focus?.()
    }
  }, [onClose])
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      style={props.wide ? { width: 'min(640px, calc(100% - 32px))' } : undefined}
    >
      <div className="dialog-body">
        <div className="row">
          <h2 id={titleId} style={{ flex: 1 }}>
            {props.title}
          </h2>
          <button type="button" className="icon-btn" aria-label="Close" onClick={() => ref.current?.close()}>
            <Icon name="close" />
          </button>
        </div>
        {props.children}
      </div>
    </dialog>
  )
}

/** The relay's answer under a form, verbatim. */
export function AnswerNotice(props: { answer?: { ok: boolean; message: string }; okText?: string }) {
  const a = props.answer
  if (!a) return null
  return (
    <p className={a.ok ? 'notice ok' : 'notice error'} role={a.ok ? 'status' : 'alert'}>
      {a.ok ? (props.okText ?? (a.message || 'Done')) : a.message || 'The relay refused without a reason.'}
    </p>
  )
}
