import { useEffect, useRef, useState } from 'react'
import { useApp } from '../hooks'
import { shortNpub } from '../lib/format'
import { cleanName } from '../lib/names'
import type { MessageItem } from '../model/types'

/**
 * The least time between two announcements: what arrives meanwhile is read as one summary
 * ("3 new messages from Bob and Ada"), so a busy group does not talk over itself.
 */
export const ANNOUNCE_EVERY_MS = 5000

/** A message older than this when the view opened is history, not news (allows for clock skew). */
const NEWS_SLACK_SECONDS = 30

/** What one announcement says about the messages that came in since the last one. */
export function announcement(messages: readonly MessageItem[], nameOf: (pubkey: string) => string): string {
  const first = messages[0]
  if (!first) return ''
  if (messages.length === 1) {
    const text = first.title ?? first.content.replace(/\s+/g, ' ').trim()
    const short = text.length > 140 ? `${text.slice(0, 139)}…` : text
    return `New message from ${nameOf(first.pubkey)}${short ? `: ${short}` : ''}`
  }
  const names = [...new Set(messages.map((m) => m.pubkey))].map(nameOf)
  const who =
    names.length <= 3
      ? names.length === 1
        ? names[0]
        : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
      : `${names.slice(0, 2).join(', ')} and ${names.length - 2} others`
  return `${messages.length} new messages from ${who}`
}

/**
 * A polite live region for the open group: messages from others that arrive while it is open are
 * announced, at most once per {@link ANNOUNCE_EVERY_MS}, summarised when several came in. The
 * timeline itself does not speak (it is a log with `aria-live="off"`), so history, older pages
 * and our own messages stay silent.
 */
export function NewMessagesAnnouncer(props: {
  messages: readonly MessageItem[]
  me: string
  /** While the group's first page loads, arriving messages are history. */
  loading: boolean
}) {
  const app = useApp()
  const [said, setSaid] = useState({ text: '', n: 0 })
  const seen = useRef<Set<string>>(undefined)
  const openedAt = useRef(Math.floor(Date.now() / 1000))
  const queue = useRef<MessageItem[]>([])
  const lastSpoke = useRef(0)
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined)
  const wasLoading = useRef(true)

  useEffect(() => {
    const known = seen.current
    // What the group shows when its first page is in (from the cache or the relay) is history.
    if (!known || props.loading || wasLoading.current) {
      seen.current = new Set(props.messages.map((m) => m.id))
      wasLoading.current = props.loading
      return
    }
    const speak = () => {
      timer.current = undefined
      const batch = queue.current
      queue.current = []
      if (batch.length === 0) return
      lastSpoke.current = Date.now()
      const nameOf = (pubkey: string) => cleanName(app.profile(pubkey)?.name ?? '') || shortNpub(pubkey)
      const text = announcement(batch, nameOf)
      setSaid((s) => ({ text, n: s.n + 1 }))
    }
    let added = false
    for (const m of props.messages) {
      if (known.has(m.id)) continue
      known.add(m.id)
      if (m.pubkey === props.me || m.pending || m.send) continue
      if (m.createdAt < openedAt.current - NEWS_SLACK_SECONDS) continue
      queue.current.push(m)
      added = true
    }
    if (!added || timer.current) return
    const wait = lastSpoke.current + ANNOUNCE_EVERY_MS - Date.now()
    if (wait <= 0) speak()
    else timer.current = setTimeout(speak, wait)
  }, [props.messages, props.me, props.loading, app])

  useEffect(() => () => clearTimeout(timer.current), [])

  return (
    <div className="visually-hidden" role="status" aria-live="polite" data-testid="new-messages">
      {/* A new node per announcement: the same words twice are still read twice. */}
      {said.text ? <p key={said.n}>{said.text}</p> : null}
    </div>
  )
}
