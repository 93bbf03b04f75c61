import { type FormEvent, useId, useState } from 'react'
import type { GroupHandle } from '../model/api'
import type { Answer } from '../model/types'
import { AnswerNotice, Dialog } from './Dialog'

/** Starts a kind 11 thread (a title and a first post); replies go in the side panel. */
export function ThreadDialog(props: { handle: GroupHandle; onClose: () => void; onStarted: () => void }) {
  const [title, setTitle] = useState('')
  const [content, setContent] = useState('')
  const [busy, setBusy] = useState(false)
  const [answer, setAnswer] = useState<Answer>()
  const ids = { title: useId(), content: useId() }
  async function submit(e: FormEvent) {
    e.preventDefault()
    setBusy(true)
    setAnswer(undefined)
    const result = await props.handle.startThread(title.trim(), content.trim())
    setBusy(false)
    setAnswer(result)
    if (result.ok) props.onStarted()
  }
  return (
    <Dialog title="Start a thread" onClose={props.onClose}>
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor={ids.title}>Title</label>
          <input
            id={ids.title}
            type="text"
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            required
          />
        </div>
        <div className="field">
          <label htmlFor={ids.content}>First post</label>
          <textarea id={ids.content} rows={4} value={content} onChange={(e) => setContent(e.target.value)} />
        </div>
        <AnswerNotice answer={answer && !answer.ok ? answer : undefined} />
        <div className="row end">
          <button type="submit" className="btn primary" disabled={busy || !title.trim()}>
            {busy ? 'Posting…' : 'Start thread'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
