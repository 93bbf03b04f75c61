import { type ReactNode, useState } from 'react'
import type { Answer } from '../model/types'
import { AnswerNotice, Dialog } from './Dialog'

/**
 * A destructive action asked once in the app's own dialog (focus starts on Cancel, Escape
 * closes, buttons are finger-sized on a phone): `onConfirm` runs it, and the dialog closes on
 * success or shows the relay's refusal.
 */
export function ConfirmDialog(props: {
  title: string
  children: ReactNode
  confirm: string
  busy: string
  onConfirm: () => Promise<Answer>
  onClose: () => void
}) {
  const [busy, setBusy] = useState(false)
  const [answer, setAnswer] = useState<Answer>()
  async function run() {
    setBusy(true)
    setAnswer(undefined)
    const result = await props.onConfirm()
    setBusy(false)
    if (result.ok) props.onClose()
    else setAnswer(result)
  }
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      {props.children}
      <AnswerNotice answer={answer} />
      <div className="row end">
        <button type="button" className="btn" onClick={props.onClose}>
          Cancel
        </button>
        <button type="button" className="btn danger" onClick={run} disabled={busy}>
          {busy ? props.busy : props.confirm}
        </button>
      </div>
    </Dialog>
  )
}
