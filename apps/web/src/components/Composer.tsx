import type { ImetaFields } from '@roost/nip29'
import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react'
import { prepareDraft } from '../lib/compose'
import { OFFLINE_MESSAGE } from '../model/connection'
import type { Answer, MessageItem } from '../model/types'
import { AttachButton, AttachmentTray, type Uploader, useAttachments } from './Attachments'
import { Icon } from './Icon'
import { useMentionSuggest } from './MentionSuggest'
import { useDisplayName } from './Name'
import { useOnlineAgain } from './useOnlineAgain'

function ReplyingTo(props: { message: MessageItem; onCancel: () => void }) {
  const name = useDisplayName(props.message.pubkey)
  return (
    <div className="replying">
      <span>
        Replying to <strong>{name}</strong>: {props.message.content.slice(0, 80)}
      </span>
      <button type="button" className="icon-btn" aria-label="Cancel reply" onClick={props.onCancel}>
        <Icon name="close" size={14} />
      </button>
    </div>
  )
}

/**
 * The message box. Enter sends, Shift+Enter adds a line. When the relay refuses, its message
 * is shown and the draft stays; when sending is impossible (not a member, kind not supported)
 * the box is disabled with the reason.
 */
export function Composer(props: {
  label: string
  placeholder: string
  canSend: { ok: true } | { ok: false; reason: string }
  onSend: (text: string, media?: ImetaFields[]) => Promise<Answer>
  /** Uploads an attached file (button, paste or drop); without it nothing can be attached. */
  onUpload?: Uploader
  replyTo?: MessageItem
  onCancelReply?: () => void
  autoFocus?: boolean
  /** Who `@` offers (members and recent authors). */
  people?: readonly string[]
  /** Up arrow in an empty box: quote our last message; false when there is none. */
  onQuoteLast?: () => boolean
  /** Shown where files are attached (a private group's files are readable by link). */
  attachNotice?: string
}) {
  const [draft, setDraft] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const id = useId()
  const ref = useRef<HTMLTextAreaElement>(null)
  const disabled = !props.canSend.ok
  // "You are offline" goes when the connection is back, not at the next send.
  useOnlineAgain(() => setError((e) => (e === OFFLINE_MESSAGE ? undefined : e)))
  const mention = useMentionSuggest({ people: props.people ?? [], draft, setDraft, textarea: ref })
  const attachments = useAttachments(props.onUpload)
  const [dropping, setDropping] = useState(false)

  useEffect(() => {
    if (props.replyTo || props.autoFocus) ref.current?.focus()
  }, [props.replyTo, props.autoFocus])

  async function send() {
    const media = attachments.ready
    const text = [draft.trim(), ...media.map((m) => m.url)].filter(Boolean).join('\n')
    if (!text || busy || disabled || attachments.busy) return
    setBusy(true)
    setError(undefined)
    const answer = await prepareDraft(text, mention.picked)
      .then((prepared) => props.onSend(prepared, media.length > 0 ? media : undefined))
      .catch((e: unknown): Answer => ({ ok: false, message: e instanceof Error ? e.message : String(e) }))
    setBusy(false)
    if (answer.ok) {
      setDraft('')
      mention.reset()
      attachments.clear()
      if (ref.current) ref.current.style.height = ''
      ref.current?.focus()
    } else setError(answer.message || 'The relay refused the message.')
  }

  function onKey(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (mention.onKey(e)) return
    if (e.key === 'ArrowUp' && draft === '' && props.onQuoteLast?.()) {
      e.preventDefault()
      return
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault()
      void send()
    }
    if (e.key === 'Escape' && props.replyTo) {
      e.preventDefault()
      props.onCancelReply?.()
    }
  }

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
      {props.replyTo && props.onCancelReply ? (
        <ReplyingTo message={props.replyTo} onCancel={props.onCancelReply} />
      ) : null}
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
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void send()
        }}
      >
        <label htmlFor={id} className="visually-hidden">
          {props.label}
        </label>
        <textarea
          id={id}
          ref={ref}
          rows={1}
          value={draft}
          placeholder={props.placeholder}
          disabled={disabled}
          aria-describedby={!props.canSend.ok ? `${id}-reason` : undefined}
          aria-invalid={error ? true : undefined}
          {...mention.inputProps}
          onSelect={(e) => mention.update(e.currentTarget.value, e.currentTarget.selectionStart)}
          onChange={(e) => {
            setDraft(e.target.value)
            mention.update(e.target.value, e.target.selectionStart)
            const el = e.target
            el.style.height = 'auto'
            el.style.height = `${Math.min(el.scrollHeight, 200)}px`
          }}
          onKeyDown={onKey}
          onPaste={(e) => {
            if (!attachments.enabled || e.clipboardData.files.length === 0) return
            e.preventDefault()
            attachments.add([...e.clipboardData.files])
          }}
        />
        {attachments.enabled ? (
          <AttachButton onFiles={attachments.add} disabled={disabled} notice={props.attachNotice} />
        ) : null}
        <button
          type="submit"
          className="btn primary"
          disabled={disabled || busy || attachments.busy || (!draft.trim() && attachments.ready.length === 0)}
        >
          {busy ? 'Sending…' : 'Send'}
        </button>
      </form>
    </div>
  )
}
