import { useCallback, useEffect, useRef, useState } from 'react'
import { useApp } from '../hooks'
import type { GroupHandle } from '../model/api'
import type { GroupDetail } from '../model/types'
import { Composer } from './Composer'
import { Icon } from './Icon'
import { type MessageActions, MessageRow } from './MessageRow'

const NONE: ReadonlySet<string> = new Set()

/** Seen = at least half of the reply, or half of the panel for a reply taller than the panel. */
function seenEnough(e: IntersectionObserverEntry): boolean {
  if (!e.isIntersecting) return false
  const panel = e.rootBounds?.height ?? 0
  return e.intersectionRatio >= 0.5 || (panel > 0 && e.intersectionRect.height >= panel / 2)
}

/**
 * A kind 11 thread and its kind 1111 replies (NIP-22), beside the timeline. Each reply is marked
 * read by message as it scrolls into view; the thread context is marked only once every reply has
 * been seen, so a reply scrolled past unseen keeps the thread unread.
 */
export function ThreadPanel(props: {
  handle: GroupHandle
  detail: GroupDetail
  rootId: string
  actions: MessageActions
  visible: boolean
  onClose: () => void
  /** The back button's name on phones, where the panel is a full-screen sheet. */
  backLabel?: string
}) {
  const thread = props.handle.thread(props.rootId)
  const newest = thread ? Math.max(thread.root.createdAt, ...thread.replies.map((r) => r.createdAt)) : 0
  const { handle, rootId, visible } = props
  const me = useApp().snapshot().session.pubkey

  // Replies currently in view of the panel's scroll area.
  const body = useRef<HTMLDivElement>(null)
  const [observer, setObserver] = useState<IntersectionObserver>()
  const [inView, setInView] = useState<ReadonlySet<string>>(NONE)
  useEffect(() => {
    const root = body.current
    if (!root || typeof IntersectionObserver === 'undefined') return
    const io = new IntersectionObserver(
      (entries) =>
        setInView((prev) => {
          let next: Set<string> | undefined
          for (const e of entries) {
            const id = (e.target as HTMLElement).dataset.replyId
            if (!id || seenEnough(e) === prev.has(id)) continue
            next ??= new Set(prev)
            if (seenEnough(e)) next.add(id)
            else next.delete(id)
          }
          return next ?? prev
        }),
      { root, threshold: [0, 0.25, 0.5, 0.75, 1] },
    )
    setObserver(io)
    return () => {
      io.disconnect()
      setObserver(undefined)
    }
  }, [])
  const observe = useCallback(
    (el: HTMLDivElement | null) => {
      if (!el || !observer) return
      const id = el.dataset.replyId
      observer.observe(el)
      return () => {
        observer.unobserve(el)
        setInView((prev) => {
          if (!id || !prev.has(id)) return prev
          const next = new Set(prev)
          next.delete(id)
          return next
        })
      }
    },
    [observer],
  )

  // Replies seen while the page was visible, per thread: each marked by message once.
  const seen = useRef<{ rootId: string; ids: Set<string> }>({ rootId, ids: new Set() })
  if (seen.current.rootId !== rootId) seen.current = { rootId, ids: new Set() }
  useEffect(() => {
    if (!visible || !thread || newest <= 0) return
    const ids = seen.current.ids
    for (const r of thread.replies) {
      if (ids.has(r.id) || r.pending || !inView.has(r.id)) continue
      ids.add(r.id)
      handle.markMessageRead(r.id)
    }
    if (thread.replies.every((r) => r.pending || ids.has(r.id))) handle.markThreadRead(rootId, newest)
  }, [handle, rootId, thread, newest, visible, inView])

  const [lastId, setLastId] = useState<string>()
  useEffect(() => {
    const last = thread?.replies[thread.replies.length - 1]?.id
    if (last && last !== lastId) {
      setLastId(last)
      document.getElementById(`reply-${last}`)?.scrollIntoView({ block: 'nearest' })
    }
  }, [thread, lastId])

  return (
    <aside className="side" aria-labelledby="thread-title">
      <div className="side-head">
        <button
          type="button"
          className="icon-btn back-btn"
          aria-label={props.backLabel ?? 'Back'}
          onClick={props.onClose}
        >
          <Icon name="back" />
        </button>
        <h2 id="thread-title">Thread{thread?.root.title ? `: ${thread.root.title}` : ''}</h2>
        <button
          type="button"
          className="icon-btn close-btn"
          aria-label="Close thread"
          onClick={props.onClose}
        >
          <Icon name="close" />
        </button>
      </div>
      <div className="side-body" ref={body}>
        {thread ? (
          <>
            <MessageRow message={thread.root} actions={props.actions} inThread />
            <h3>
              {thread.replies.length} {thread.replies.length === 1 ? 'reply' : 'replies'}
            </h3>
            {thread.replies.map((r) => (
              <div key={r.id} id={`reply-${r.id}`} data-reply-id={r.id} ref={observe}>
                <MessageRow message={r} actions={{ ...props.actions, onReply: undefined }} inThread />
              </div>
            ))}
          </>
        ) : (
          <p className="timeline-empty">This thread is not loaded.</p>
        )}
      </div>
      {thread ? (
        <Composer
          key={props.rootId}
          label="Reply in thread"
          placeholder="Reply in thread…"
          canSend={props.detail.canSend}
          box={`${props.handle.key}#${props.rootId}`}
          sending={props.detail.sending}
          people={[
            ...new Set([
              ...thread.replies.map((r) => r.pubkey),
              thread.root.pubkey,
              ...props.detail.members.map((m) => m.pubkey),
            ]),
          ].filter((pk) => pk !== me)}
          onSubmit={(draft) =>
            void props.handle.post(`${props.handle.key}#${props.rootId}`, draft, {
              root: props.rootId,
              parent: thread.replies.at(-1)?.id ?? props.rootId,
            })
          }
        />
      ) : null}
    </aside>
  )
}
