import { useId } from 'react'
import { useApp } from '../hooks'
import type { AppApi } from '../model/api'
import type { NotifyLevel } from '../model/types'
import './notify.css'

/** The levels as the menus name them. */
export const NOTIFY_LABELS: Record<NotifyLevel, string> = {
  all: 'All messages',
  mentions: 'Mentions only',
  muted: 'Muted',
}

function Bell(props: { muted?: boolean }) {
  return (
    <svg
      width={16}
      height={16}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      aria-hidden="true"
    >
      <path d="M6 9a6 6 0 1 1 12 0c0 6 3 7 3 7H3s3-1 3-7M10 20a2 2 0 0 0 4 0" />
      {props.muted ? <path d="M3 3l18 18" /> : null}
    </svg>
  )
}

/**
 * Sets a group's level; a level that notifies asks for the browser's permission, from this user
 * gesture, when it has not been asked yet.
 */
export function chooseNotifyLevel(app: AppApi, groupKey: string, level: NotifyLevel): void {
  app.setNotifyLevel(groupKey, level)
  if (level !== 'muted' && typeof Notification !== 'undefined' && Notification.permission === 'default') {
    void Notification.requestPermission()
      .then((p) => {
        if (p === 'granted') app.setSettings({ notifications: true })
      })
      .catch(() => undefined)
  }
}

/**
 * The group's notification level on this device: all messages, mentions only, or muted. Choosing
 * a level that notifies asks for the browser's permission, from this user gesture, when it has
 * not been asked yet.
 */
export function NotifyMenu(props: { groupKey: string; groupName: string; level: NotifyLevel }) {
  const app = useApp()
  const id = useId()
  return (
    <div className="notify-menu">
      <label htmlFor={id} className="notify-label" title="Notifications for this group">
        <Bell muted={props.level === 'muted'} />
        <span className="visually-hidden">Notifications for {props.groupName}</span>
      </label>
      <select
        id={id}
        value={props.level}
        onChange={(e) => chooseNotifyLevel(app, props.groupKey, e.target.value as NotifyLevel)}
      >
        {(Object.keys(NOTIFY_LABELS) as NotifyLevel[]).map((l) => (
          <option key={l} value={l}>
            {NOTIFY_LABELS[l]}
          </option>
        ))}
      </select>
    </div>
  )
}

/** The sidebar's mention badge: unread mentions, shown whatever the group's level. */
export function MentionBadge(props: { count: number }) {
  return (
    <span className="badge mention-badge" data-testid="mention-badge">
      @{props.count > 99 ? '99+' : props.count}
      <span className="visually-hidden"> {props.count === 1 ? 'mention' : 'mentions'}</span>
    </span>
  )
}

/** A muted group's mark in the sidebar. */
export function MutedMark() {
  return (
    <span className="muted-mark" title="Muted">
      <Bell muted />
      <span className="visually-hidden">muted</span>
    </span>
  )
}
