import { memo } from 'react'
import { formatFull, formatTime } from '../lib/format'
import type { MessageItem } from '../model/types'
import { CollapsibleBody } from './CollapsibleBody'
import { Icon, type IconName } from './Icon'
import { Markdown } from './Markdown'
import { MessageMedia, textWithoutMedia } from './MessageMedia'
import { PersonAvatar, PersonName, useDisplayName } from './Name'
import { ReactionChip } from './ReactionChip'
import { ReactionPicker } from './ReactionPicker'

export const QUICK_REACTIONS = ['👍', '❤️', '😂', '🎉'] as const

/** The quick-reaction buttons draw these icons, not the emoji (which needs an emoji font). */
const QUICK_ICONS: Record<string, IconName> = { '👍': 'thumbsUp', '❤️': 'heart' }

export interface MessageActions {
  onReply?: (m: MessageItem) => void
  onReact?: (m: MessageItem, emoji: string) => void
  onOpenThread?: (m: MessageItem) => void
  onDelete?: (m: MessageItem) => void
  /** Whether `onDelete` applies to this message (our own, or any when we moderate). */
  canDelete?: (m: MessageItem) => boolean
  /** Withdraws our own reaction (a second click on its chip). */
  onUnreact?: (m: MessageItem, emoji: string) => void
  /** Pins or unpins (admins); `isPinned` says which. */
  onPin?: (m: MessageItem) => void
  isPinned?: (id: string) => boolean
  onQuoteClick?: (id: string) => void
  /** Reports the message or its author to the group's admins; `canReport` says where it applies. */
  onReport?: (m: MessageItem) => void
  canReport?: (m: MessageItem) => boolean
  /** Sends our failed or unconfirmed message again (the same signed event: never a copy). */
  onRetrySend?: (m: MessageItem) => void
  /** Drops our failed message (it never reached the relay). */
  onDiscardSend?: (m: MessageItem) => void
}

/** Where our own unconfirmed message stands: not confirmed yet, or failed with the relay's reason. */
function SendState(props: { m: MessageItem; actions: MessageActions; tabIndex?: number }) {
  const { m, actions: a } = props
  if (!m.send || m.send.status === 'sending') return null
  if (m.send.status === 'unknown')
    return (
      <div className="send-state" data-testid="send-state" data-status="unknown">
        <span>Not confirmed yet: the relay has not answered. It shows as sent once the relay has it.</span>{' '}
        <button
          type="button"
          className="btn small"
          tabIndex={props.tabIndex}
          onClick={() => a.onRetrySend?.(m)}
        >
          Retry
        </button>
      </div>
    )
  return (
    <div className="send-state failed" data-testid="send-state" data-status="failed" role="alert">
      <span>Not sent: {m.send.reason || 'the relay refused it.'}</span>{' '}
      <button
        type="button"
        className="btn small"
        tabIndex={props.tabIndex}
        onClick={() => a.onRetrySend?.(m)}
      >
        Retry
      </button>{' '}
      <button
        type="button"
        className="btn small"
        tabIndex={props.tabIndex}
        onClick={() => a.onDiscardSend?.(m)}
      >
        Delete
      </button>
    </div>
  )
}

function Quote(props: {
  quoted?: MessageItem
  id: string
  onClick?: (id: string) => void
  tabIndex?: number
}) {
  const name = useDisplayName(props.quoted?.pubkey ?? '')
  const text = props.quoted ? props.quoted.content : 'a message not loaded yet'
  return (
    <button
      type="button"
      className="quote"
      tabIndex={props.tabIndex}
      onClick={() => props.onClick?.(props.id)}
      aria-label={`In reply to ${props.quoted ? name : 'a message'}: ${text.slice(0, 80)}`}
    >
      <Icon name="reply" size={13} /> {props.quoted ? <strong>{name}</strong> : null} {text.slice(0, 140)}
    </button>
  )
}

/** One timeline entry: kind 9 chat, kind 1 note or kind 11 thread root, with its reactions. */
export const MessageRow = memo(function MessageRow(props: {
  message: MessageItem
  quoted?: MessageItem
  compact?: boolean
  actions: MessageActions
  inThread?: boolean
  /**
   * In the timeline the row is one stop of a roving tabindex: 0 for the active row, -1 for the
   * others, and its buttons are reached with Enter and the arrow keys instead of Tab.
   */
  tabIndex?: number
}) {
  const m = props.message
  const a = props.actions
  const inner = props.tabIndex === undefined ? undefined : -1
  const compact = props.compact && !m.replyTo && m.kind !== 11
  return (
    <article
      className={`msg${m.pending ? ' pending' : ''}${m.mentionsMe ? ' mentions-me' : ''}`}
      data-id={m.id}
      data-kind={m.kind}
      aria-label={m.kind === 11 ? `Thread: ${m.title ?? ''}` : undefined}
      tabIndex={props.tabIndex}
      style={compact ? { paddingTop: 0 } : { paddingTop: 8 }}
    >
      <div>{compact ? null : <PersonAvatar pubkey={m.pubkey} interactive />}</div>
      <div style={{ minWidth: 0 }}>
        {compact ? null : (
          <div className="meta">
            <PersonName pubkey={m.pubkey} className="author" interactive tabIndex={inner} />
            <time dateTime={new Date(m.createdAt * 1000).toISOString()} title={formatFull(m.createdAt)}>
              {formatTime(m.createdAt)}
            </time>
            {m.kind === 1 ? <span className="kind-tag">note</span> : null}
            {m.kind === 11 ? <span className="kind-tag">thread</span> : null}
            {m.pending ? <span className="kind-tag">sending…</span> : null}
            {m.send?.status === 'unknown' ? <span className="kind-tag">not confirmed yet</span> : null}
            {m.send?.status === 'failed' ? <span className="kind-tag">not sent</span> : null}
          </div>
        )}
        {m.replyTo ? (
          <Quote quoted={props.quoted} id={m.replyTo} onClick={a.onQuoteClick} tabIndex={inner} />
        ) : null}
        {m.kind === 11 && m.title ? <div className="thread-title">{m.title}</div> : null}
        <CollapsibleBody tabIndex={inner}>
          <Markdown text={textWithoutMedia(m)} images={false} linkTabIndex={inner} />
        </CollapsibleBody>
        <MessageMedia message={m} tabIndex={inner} />
        <SendState m={m} actions={a} tabIndex={inner} />
        {m.reactions.length > 0 ? (
          <div className="reactions">
            {m.reactions.map((r) => (
              <ReactionChip
                key={r.emoji}
                reaction={r}
                tabIndex={inner}
                onClick={() => (r.mine ? a.onUnreact?.(m, r.emoji) : a.onReact?.(m, r.emoji))}
              />
            ))}
          </div>
        ) : null}
        {(m.kind === 11 || (m.kind === 9 && m.replies)) && !props.inThread ? (
          <div className="thread-link">
            <button type="button" className="btn small" tabIndex={inner} onClick={() => a.onOpenThread?.(m)}>
              {m.replies ? `${m.replies} ${m.replies === 1 ? 'reply' : 'replies'}` : 'Reply in thread'}
            </button>
          </div>
        ) : null}
      </div>
      {m.pending || m.send ? null : (
        <div className="msg-actions" role="toolbar" aria-label="Message actions">
          {QUICK_REACTIONS.slice(0, 2).map((emoji) => (
            <button
              key={emoji}
              type="button"
              className="icon-btn"
              tabIndex={inner}
              aria-label={`React ${emoji}`}
              onClick={() => a.onReact?.(m, emoji)}
            >
              {QUICK_ICONS[emoji] ? <Icon name={QUICK_ICONS[emoji]} /> : emoji}
            </button>
          ))}
          {a.onReply ? (
            <button
              type="button"
              className="icon-btn"
              tabIndex={inner}
              aria-label="Reply"
              onClick={() => a.onReply?.(m)}
            >
              <Icon name="reply" />
            </button>
          ) : null}
          {(m.kind === 11 || m.kind === 9) && a.onOpenThread && !props.inThread ? (
            <button
              type="button"
              className="icon-btn"
              tabIndex={inner}
              aria-label={m.kind === 11 ? 'Open thread' : 'Reply in thread'}
              title={m.kind === 11 ? 'Open thread' : 'Reply in thread'}
              onClick={() => a.onOpenThread?.(m)}
            >
              <Icon name="thread" />
            </button>
          ) : null}
          {a.onReact ? <ReactionPicker tabIndex={inner} onPick={(emoji) => a.onReact?.(m, emoji)} /> : null}
          {a.onPin ? (
            <button
              type="button"
              className="icon-btn"
              tabIndex={inner}
              aria-label={a.isPinned?.(m.id) ? 'Unpin message' : 'Pin message'}
              aria-pressed={a.isPinned?.(m.id) === true}
              onClick={() => a.onPin?.(m)}
            >
              <Icon name="pin" />
            </button>
          ) : null}
          {a.onReport && (a.canReport?.(m) ?? true) ? (
            <button
              type="button"
              className="icon-btn report-action"
              tabIndex={inner}
              aria-label="Report…"
              title="Report to the admins"
              onClick={() => a.onReport?.(m)}
            >
              <Icon name="flag" />
            </button>
          ) : null}
          {a.onDelete && (a.canDelete?.(m) ?? true) ? (
            <button
              type="button"
              className="icon-btn"
              tabIndex={inner}
              aria-label="Delete message"
              onClick={() => a.onDelete?.(m)}
            >
              <Icon name="trash" />
            </button>
          ) : null}
        </div>
      )}
    </article>
  )
})
