import { UploadError } from '@roost/client'
import type { ImetaFields } from '@roost/nip29'
import { useCallback, useId, useRef, useState } from 'react'
import { Icon } from './Icon'
import './attachments.css'

/** Uploads a file, reporting progress; resolves to its imeta fields. */
export type Uploader = (file: File, onProgress: (sent: number, total: number) => void) => Promise<ImetaFields>

/** One file being attached: uploading (`progress` 0–1), uploaded (`media`), or failed (`error`). */
export interface Attachment {
  id: number
  name: string
  progress: number
  media?: ImetaFields
  error?: string
}

let nextId = 1

/** The composer's attachments: each file uploads as soon as it is added. */
export function useAttachments(upload: Uploader | undefined) {
  const [items, setItems] = useState<Attachment[]>([])
  const patch = useCallback((id: number, p: Partial<Attachment>) => {
    setItems((list) => list.map((a) => (a.id === id ? { ...a, ...p } : a)))
  }, [])
  const add = useCallback(
    (files: Iterable<File>) => {
      if (!upload) return
      for (const file of files) {
        const id = nextId++
        setItems((list) => [...list, { id, name: file.name || 'pasted file', progress: 0 }])
        upload(file, (sent, total) => patch(id, { progress: total > 0 ? sent / total : 0 })).then(
          (media) => patch(id, { media, progress: 1 }),
          (err: unknown) =>
            patch(id, {
              error:
                err instanceof UploadError
                  ? err.status === 413
                    ? 'too large for this server'
                    : err.reason
                  : err instanceof Error
                    ? err.message
                    : String(err),
            }),
        )
      }
    },
    [upload, patch],
  )
  const remove = useCallback((id: number) => setItems((list) => list.filter((a) => a.id !== id)), [])
  const clear = useCallback(() => setItems([]), [])
  /** Puts files already uploaded back under the box (their message was not sent). */
  const restore = useCallback((media: readonly ImetaFields[]) => {
    const back = media.map((m) => ({
      id: nextId++,
      name: m.url.split('/').pop() || 'file',
      progress: 1,
      media: m,
    }))
    setItems((list) => [...list, ...back])
  }, [])
  const ready = items.flatMap((a) => (a.media ? [a.media] : []))
  const busy = items.some((a) => !a.media && !a.error)
  return { items, add, remove, clear, restore, ready, busy, enabled: upload !== undefined }
}

/**
 * What a private group's members should know before sending a file: the upload server serves a
 * file to anyone who asks for its hash (Blossom), so the file is only as private as its link.
 */
export const PRIVATE_MEDIA_NOTICE =
  'This group is private, but its files are not: anyone who gets a file’s link can open it, member or not.'

/**
 * The files under the message box, with progress, errors and a remove button each; `notice`
 * (a private group's) above them.
 */
export function AttachmentTray(props: {
  items: readonly Attachment[]
  onRemove: (id: number) => void
  notice?: string
}) {
  if (props.items.length === 0) return null
  return (
    <>
      {props.notice ? (
        <p className="attachment-notice" role="note" data-testid="attachment-notice">
          {props.notice}
        </p>
      ) : null}
      <AttachmentList items={props.items} onRemove={props.onRemove} />
    </>
  )
}

function AttachmentList(props: { items: readonly Attachment[]; onRemove: (id: number) => void }) {
  return (
    <ul className="attachment-tray" aria-label="Attachments">
      {props.items.map((a) => (
        <li key={a.id} className={a.error ? 'attachment failed' : 'attachment'} data-testid="attachment">
          <span className="attachment-name">{a.name}</span>
          {a.error ? (
            <span className="attachment-error" role="alert">
              Upload failed: {a.error}
            </span>
          ) : a.media ? (
            <span className="attachment-done">Ready</span>
          ) : (
            <progress max={1} value={a.progress} aria-label={`Uploading ${a.name}`} />
          )}
          <button
            type="button"
            className="icon-btn"
            aria-label={`Remove ${a.name}`}
            onClick={() => props.onRemove(a.id)}
          >
            <Icon name="close" size={14} />
          </button>
        </li>
      ))}
    </ul>
  )
}

/** The paper-clip button: picks files to attach. */
export function AttachButton(props: {
  onFiles: (files: File[]) => void
  disabled?: boolean
  notice?: string
}) {
  const ref = useRef<HTMLInputElement>(null)
  const id = useId()
  return (
    <>
      <input
        ref={ref}
        id={id}
        type="file"
        multiple
        hidden
        aria-label="Attach files"
        onChange={(e) => {
          props.onFiles([...(e.target.files ?? [])])
          e.target.value = ''
        }}
      />
      <button
        type="button"
        className="icon-btn attach-btn"
        aria-label="Attach a file"
        title={props.notice}
        disabled={props.disabled}
        onClick={() => ref.current?.click()}
      >
        <Icon name="paperclip" />
      </button>
    </>
  )
}
