import { type KeyboardEvent, useEffect, useLayoutEffect, useRef, useState } from 'react'
import { createPortal } from 'react-dom'
import { EMOJI_DATA_URL } from '../lib/compose'
import { Icon } from './Icon'
import './reactions.css'

const WIDTH = 344
const HEIGHT = 400

/** Where the popover goes: below the button when it fits, else above; always on screen. */
function place(button: HTMLElement): { left: number; top: number } {
  const r = button.getBoundingClientRect()
  const left = Math.max(8, Math.min(window.innerWidth - WIDTH - 8, r.right - WIDTH))
  const below = r.bottom + 4
  const top = below + HEIGHT <= window.innerHeight - 8 ? below : Math.max(8, r.top - HEIGHT - 4)
  return { left, top }
}

/**
 * "Add reaction": any emoji from emoji-picker-element, loaded with its data (served from this
 * origin) only when first opened. Picking reacts and closes; Escape or a click outside closes.
 */
export function ReactionPicker(props: {
  onPick: (emoji: string) => void
  tabIndex?: number
  /** The button's and the popover's names (default: a reaction's). */
  label?: string
  popLabel?: string
  disabled?: boolean
}) {
  const [open, setOpen] = useState(false)
  const [failed, setFailed] = useState(false)
  const [at, setAt] = useState<{ left: number; top: number }>()
  const button = useRef<HTMLButtonElement>(null)
  const pop = useRef<HTMLDivElement>(null)
  const onPick = useRef(props.onPick)
  onPick.current = props.onPick

  useLayoutEffect(() => {
    if (open && button.current) setAt(place(button.current))
  }, [open])

  useEffect(() => {
    if (!open) return
    let cancelled = false
    let picker: HTMLElement | undefined
    const close = () => {
      setOpen(false)
      button.current?.focus()
    }
    void import('emoji-picker-element')
      .then(({ Picker }) => {
        if (cancelled || !pop.current) return
        // No emoji font is needed to pick: the version check would hide emoji it cannot draw.
        const p = new Picker({ dataSource: EMOJI_DATA_URL, emojiVersion: 15 })
        p.addEventListener('emoji-click', (e) => {
          const emoji = e.detail.unicode ?? e.detail.emoji.name
          if (emoji) onPick.current(emoji)
          close()
        })
        pop.current.replaceChildren(p)
        picker = p
        requestAnimationFrame(() =>
          p.shadowRoot?.querySelector<HTMLInputElement>('input[type=search], input')?.focus(),
        )
      })
      .catch(() => setFailed(true))
    const outside = (e: MouseEvent) => {
      const t = e.target as Node
      if (!pop.current?.contains(t) && !button.current?.contains(t)) setOpen(false)
    }
    // Escape closes even before the picker has loaded and taken the focus.
    const onEscape = (e: globalThis.KeyboardEvent) => {
      if (e.key !== 'Escape') return
      e.preventDefault()
      close()
    }
    document.addEventListener('mousedown', outside)
    document.addEventListener('keydown', onEscape)
    return () => {
      cancelled = true
      document.removeEventListener('mousedown', outside)
      document.removeEventListener('keydown', onEscape)
      picker?.remove()
    }
  }, [open])

  function onKey(e: KeyboardEvent<HTMLDivElement>) {
    if (e.key === 'Escape') {
      e.preventDefault()
      e.stopPropagation()
      setOpen(false)
      button.current?.focus()
    }
  }

  return (
    <span className="reaction-picker">
      <button
        ref={button}
        type="button"
        className="icon-btn"
        tabIndex={props.tabIndex}
        aria-label={props.label ?? 'Add reaction'}
        disabled={props.disabled}
        aria-haspopup="dialog"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
      >
        <Icon name="smile" />
      </button>
      {open
        ? createPortal(
            <div
              className="reaction-picker-pop"
              role="dialog"
              aria-label={props.popLabel ?? 'Pick a reaction'}
              style={{ position: 'fixed', left: at?.left ?? -9999, top: at?.top ?? 0 }}
              onKeyDown={onKey}
            >
              <div ref={pop}>
                <p className="loading">{failed ? 'The emoji picker could not load.' : 'Loading emoji…'}</p>
              </div>
            </div>,
            document.body,
          )
        : null}
    </span>
  )
}
