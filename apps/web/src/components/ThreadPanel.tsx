import { useEffect, useState } from 'react'
import type { GroupHandle } from '../model/api'
import type { GroupDetail } from '../model/types'
import { Composer } from './Composer'
import { Icon } from './Icon'
import { type MessageActions, MessageRow } from './MessageRow'

/** A kind 11 thread and its kind 1111 replies (NIP-22), beside the timeline. */
export function ThreadPanel(props: {
  handle: GroupHandle
  detail: GroupDetail
  rootId: string
  actions: MessageActions
  visible: boolean
  onClose: () => void
}) {
  const thread = props.handle.thread(props.rootId)
  const newest = thread ? Math.max(thread.root.createdAt, ...thread.replies.map((r) => r.createdAt)) : 0
  const { handle, rootId, visible } = props
  useEffect(() => {
    if (visible && newest > 0) handle.markThreadRead(rootId, newest)
  }, [handle, rootId, newest, visible])
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
        <h2 id="thread-title">Thread{thread?.root.title ? `: ${thread.root.title}` : ''}</h2>
        <button type="button" className="icon-btn" aria-label="Close thread" onClick={props.onClose}>
          <Icon name="close" />
        </button>
      </div>
      <div className="side-body">
        {thread ? (
          <>
            <MessageRow message={thread.root} actions={props.actions} inThread />
            <h3>
              {thread.replies.length} {thread.replies.length === 1 ? 'reply' : 'replies'}
            </h3>
            {thread.replies.map((r) => (
              <div key={r.id} id={`reply-${r.id}`}>
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
          label="Reply in thread"
          placeholder="Reply in thread…"
          canSend={props.detail.canSend}
          onSend={(text) => props.handle.reply(props.rootId, thread.replies.at(-1)?.id ?? props.rootId, text)}
        />
      ) : null}
    </aside>
  )
}
