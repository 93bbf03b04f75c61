import { type KeyboardEvent, useEffect, useId, useLayoutEffect, useRef, useState } from 'react'
import { useApp, useDraft } from '../hooks'
import type { PickedMention } from '../lib/compose'
import { OFFLINE_MESSAGE } from '../model/connection'
import type { Draft, MessageItem } from '../model/types'
import { AttachButton, AttachmentTray, type Uploader, useAttachments } from './Attachments'
import { Icon } from './Icon'
import { useMentionSuggest } from './MentionSuggest'
import { useDisplayName } from './Name'
import { ReactionPicker } from './ReactionPicker'
import { useOnlineAgain } from './useOnlineAgain'

function ReplyingTo(props: { message: MessageItem | undefined; onCancel: () => void }) {
  const name = useDisplayName(props.message?.pubkey ?? '')
  return (
    <div className="replying">
      <span>
        {props.message ? (
          <>
            Replying to <strong>{name}</strong>: {props.message.content.slice(0, 80)}
          </>
        ) : (
          'Replying to a message not loaded yet'
        )}
      </span>
      <button type="button" className="icon-btn" aria-label="Cancel reply" onClick={props.onCancel}>
        <Icon name="close" size={14} />
      </button>
    </div>
  )
}

/**
 * The message box. Enter sends what the box holds at that moment: it is handed to the group's
 * send queue and the box is empty at once, ready for the next message, while the relay answers.
 * Shift+Enter adds a line. The draft (text, `@` picks, the quoted message) is kept per box on
 * this device. A message the relay refuses comes back into the box with the relay's reason; when
 * sending is impossible (not a member, kind not supported) the box is disabled with the reason.
 */
export function Composer(props: {
  label: string
  placeholder: string
  canSend: { ok: true } | { ok: false; reason: string }
  /** Whose draft this box shows and edits (see `Drafts`). */
  box: string
  /** Takes what the box held; the box is already empty when it is called. */
  onSubmit: (draft: Draft) => void
  /** Messages of the group waiting for the relay's answer. */
  sending?: number
  /** Uploads an attached file (button, paste or drop); without it nothing can be attached. */
  onUpload?: Uploader
  /** The message a draft's `replyTo` names, when it is loaded; without it there are no replies. */
  message?: (id: string) => MessageItem | undefined
  autoFocus?: boolean
  /** Who `@` offers (members and recent authors). */
  people?: readonly string[]
  /** Up arrow in an empty box: quote our last message; false when there is none. */
  onQuoteLast?: () => boolean
  /** Shown where files are attached (a private group's files are readable by link). */
  attachNotice?: string
}) {
  const [draft, setDraft] = useDraft(props.box)
  const { drafts } = useApp()
  const box = props.box
  // Handlers read the draft as it is now (the store is synchronous), not as of the last render.
  const latest = () => drafts.get(box)
  const id = useId()
  const ref = useRef<HTMLTextAreaElement>(null)
  const disabled = !props.canSend.ok
  const error = draft.error
  const replyTo = props.message ? draft.replyTo : undefined
  // "You are offline" goes when the connection is back, not at the next send.
  useOnlineAgain(() => {
    if (latest().error === OFFLINE_MESSAGE) setDraft({ ...latest(), error: undefined })
  })
  const mention = useMentionSuggest({
    people: props.people ?? [],
    draft: draft.text,
    picked: draft.mentions,
    setDraft: (text: string, picked: PickedMention[]) => setDraft({ ...latest(), text, mentions: picked }),
    textarea: ref,
  })
  const attachments = useAttachments(props.onUpload)
  const [dropping, setDropping] = useState(false)

  useEffect(() => {
    if (replyTo || props.autoFocus) ref.current?.focus()
  }, [replyTo, props.autoFocus])

  // Files of a message that was not sent go back under the box.
  const restoreMedia = attachments.restore
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the draft's files change; reads them from the store, so a second run finds none
  useEffect(() => {
    const media = drafts.get(box).media
    if (!media?.length) return
    restoreMedia(media)
    drafts.set(box, { ...drafts.get(box), media: undefined })
  }, [draft.media, restoreMedia, drafts, box])

  // The box grows with its text (typed, or put back after a failed send), up to 200 px.
  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    el.style.height = 'auto'
    if (draft.text !== '') el.style.height = `${Math.min(el.scrollHeight, 200)}px`
  }, [draft.text])

  /** Puts `emoji` where the caret was (over the selection), then the caret after it. */
  function insertEmoji(emoji: string) {
    const el = ref.current
    const text = latest().text
    const start = el?.selectionStart ?? text.length
    const end = el?.selectionEnd ?? start
    setDraft({ ...latest(), text: text.slice(0, start) + emoji + text.slice(end) })
    const caret = start + emoji.length
    // After the picker has closed and given focus back to its button.
    setTimeout(() => {
      el?.focus()
      el?.setSelectionRange(caret, caret)
    }, 0)
  }

  function cancelReply() {
    setDraft({ ...latest(), replyTo: undefined })
  }

  /** Hands the box's content over and empties the box, in this same event. */
  function send() {
    const d = latest()
    // Exactly what the box shows now (the DOM is the truth while keys are still arriving).
    const text = (ref.current?.value ?? d.text).trim()
    const media = attachments.ready
    if ((!text && media.length === 0) || disabled || attachments.busy) return
    const out: Draft = {
      text,
      mentions: d.mentions.filter((m) => text.includes(m.label)),
      ...(d.replyTo !== undefined ? { replyTo: d.replyTo } : {}),
      ...(media.length > 0 ? { media } : {}),
    }
    setDraft({ text: '', mentions: [] })
    mention.reset()
    attachments.clear()
    props.onSubmit(out)
  }

  function onKey(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (mention.onKey(e)) return
    if (e.key === 'ArrowUp' && e.currentTarget.value === '' && props.onQuoteLast?.()) {
      e.preventDefault()
      return
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault()
      send()
    }
    if (e.key === 'Escape' && replyTo) {
      e.preventDefault()
      cancelReply()
    }
  }

  const sending = props.sending ?? 0
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: dropping files is a shortcut; the attach button and paste do the same from the keyboard
    <div
      className={dropping ? 'composer dropping' : 'composer'}
      onDragOver={(e) => {
        if (!attachments.enabled || disabled || !e.dataTransfer.types.includes('Files')) return
        e.preventDefault()
        setDropping(true)
      }}
      onDragLeave={() => setDropping(false)}
      onDrop={(e) => {
        setDropping(false)
        if (!attachments.enabled || disabled || e.dataTransfer.files.length === 0) return
        e.preventDefault()
        attachments.add([...e.dataTransfer.files])
      }}
    >
      <AttachmentTray items={attachments.items} onRemove={attachments.remove} notice={props.attachNotice} />
      {replyTo ? <ReplyingTo message={props.message?.(replyTo)} onCancel={cancelReply} /> : null}
      {!props.canSend.ok ? (
        <p className="disabled-reason" id={`${id}-reason`}>
          {props.canSend.reason}
        </p>
      ) : null}
      {error ? (
        <p className="notice error" role="alert" data-testid="send-error">
          {error}
        </p>
      ) : null}
      {mention.list}
      <p className="sending-status" role="status" data-testid="sending">
        {sending === 0 ? '' : sending === 1 ? 'Sending…' : `Sending ${sending} messages…`}
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault()
          send()
        }}
      >
        <label htmlFor={id} className="visually-hidden">
          {props.label}
        </label>
        <textarea
          id={id}
          ref={ref}
          rows={1}
          value={draft.text}
          placeholder={props.placeholder}
          disabled={disabled}
          aria-describedby={!props.canSend.ok ? `${id}-reason` : undefined}
          aria-invalid={error ? true : undefined}
          {...mention.inputProps}
          onSelect={(e) => mention.update(e.currentTarget.value, e.currentTarget.selectionStart)}
          onChange={(e) => {
            setDraft({ ...latest(), text: e.target.value })
            mention.update(e.target.value, e.target.selectionStart)
          }}
          onKeyDown={onKey}
          onPaste={(e) => {
            if (!attachments.enabled || e.clipboardData.files.length === 0) return
            e.preventDefault()
            attachments.add([...e.clipboardData.files])
          }}
        />
        <ReactionPicker
          label="Insert emoji"
          popLabel="Pick an emoji"
          disabled={disabled}
          onPick={insertEmoji}
        />
        {attachments.enabled ? (
          <AttachButton onFiles={attachments.add} disabled={disabled} notice={props.attachNotice} />
        ) : null}
        <button
          type="submit"
          className="btn primary"
          disabled={disabled || attachments.busy || (!draft.text.trim() && attachments.ready.length === 0)}
        >
          Send
        </button>
      </form>
    </div>
  )
}
