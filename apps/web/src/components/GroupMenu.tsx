import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react'
import type { GroupDetail, NotifyLevel } from '../model/types'
import { Icon } from './Icon'
import { NOTIFY_LABELS } from './NotifyMenu'

/** The entries a phone moves from the header into the menu. */
export interface PhoneEntries {
  onSearch?: () => void
  /** The people count, when known. */
  people?: number
  level: NotifyLevel
  onLevel: (level: NotifyLevel) => void
}

/**
 * The group's "Group ▾" menu (arrow keys, Escape back to the button). On a phone it also holds
 * what the header has no room for: search, people with their count, and the notification level.
 */
export function GroupMenu(props: {
  detail: GroupDetail
  onPeople: () => void
  onInvite: () => void
  onEdit: () => void
  onLeave: () => void
  onCopyCode: () => void
  onThread: () => void
  onMarkRead: () => void
  /** Admin entries (subgroups, delete), each opening its dialog. */
  onAdmin?: (dialog: 'subgroup' | 'move' | 'delete') => void
  phone?: PhoneEntries
}) {
  const [open, setOpen] = useState(false)
  const ref = useRef<HTMLDivElement>(null)
  const buttonRef = useRef<HTMLButtonElement>(null)
  const id = useId()
  useEffect(() => {
    if (!open) return
    const close = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false)
    }
    document.addEventListener('mousedown', close)
    ref.current?.querySelector<HTMLButtonElement>('[role^=menuitem]')?.focus()
    return () => document.removeEventListener('mousedown', close)
  }, [open])
  function onMenuKey(e: KeyboardEvent<HTMLDivElement>) {
    if (e.key === 'Escape' || e.key === 'Tab') {
      if (e.key === 'Escape') e.preventDefault()
      setOpen(false)
      if (e.key === 'Escape') buttonRef.current?.focus()
      return
    }
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return
    e.preventDefault()
    const items = [...(ref.current?.querySelectorAll<HTMLButtonElement>('[role^=menuitem]') ?? [])]
    const at = items.indexOf(document.activeElement as HTMLButtonElement)
    items[(at + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus()
  }
  const item = (label: string, fn: () => void, danger = false) => (
    <button
      type="button"
      role="menuitem"
      className={danger ? 'danger' : undefined}
      onClick={() => {
        setOpen(false)
        fn()
      }}
    >
      {label}
    </button>
  )
  const admin = props.detail.me?.admin === true
  const phone = props.phone
  return (
    <div className="menu" ref={ref}>
      <button
        ref={buttonRef}
        type="button"
        className="btn"
        aria-label="Group actions"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={() => setOpen((o) => !o)}
      >
        Group <Icon name="chevron" size={16} />
      </button>
      {open ? (
        <div className="menu-list" role="menu" id={id} aria-label="Group" tabIndex={-1} onKeyDown={onMenuKey}>
          {phone?.onSearch ? item('Search messages', phone.onSearch) : null}
          {item('Start a thread…', props.onThread)}
          {item(phone?.people !== undefined ? `People (${phone.people})` : 'People', props.onPeople)}
          {item('Copy link…', props.onCopyCode)}
          {item('Mark all as read', props.onMarkRead)}
          {phone ? (
            // biome-ignore lint/a11y/useSemanticElements: a group of radio items inside a menu
            <div role="group" aria-label="Notifications" className="menu-group">
              <span className="menu-heading" aria-hidden="true">
                Notifications
              </span>
              {(Object.keys(NOTIFY_LABELS) as NotifyLevel[]).map((l) => (
                <button
                  key={l}
                  type="button"
                  role="menuitemradio"
                  aria-checked={phone.level === l}
                  onClick={() => {
                    setOpen(false)
                    phone.onLevel(l)
                  }}
                >
                  {phone.level === l ? '✓ ' : ''}
                  {NOTIFY_LABELS[l]}
                </button>
              ))}
            </div>
          ) : null}
          {admin ? item('Invite people…', props.onInvite) : null}
          {admin ? item('Edit group…', props.onEdit) : null}
          {admin ? item('New subgroup…', () => props.onAdmin?.('subgroup')) : null}
          {admin ? item('Move group…', () => props.onAdmin?.('move')) : null}
          {admin ? item('Delete group…', () => props.onAdmin?.('delete'), true) : null}
          {item('Leave group', props.onLeave, true)}
        </div>
      ) : null}
    </div>
  )
}
