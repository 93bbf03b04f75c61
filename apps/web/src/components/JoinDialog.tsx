import { type FormEvent, useId, useState } from 'react'
import { useApp } from '../hooks'
import type { Answer } from '../model/types'
import { AnswerNotice, Dialog } from './Dialog'

/** Join by naddr (with or without `?invite=`) or a group code such as `relay.example.com'general`. */
export function JoinDialog(props: {
  onClose: () => void
  onJoined: (key: string) => void
  initial?: string
}) {
  const app = useApp()
  const [input, setInput] = useState(props.initial ?? '')
  const [busy, setBusy] = useState(false)
  const [answer, setAnswer] = useState<Answer>()
  const id = useId()
  async function submit(e: FormEvent) {
    e.preventDefault()
    setBusy(true)
    setAnswer(undefined)
    const result = await app.join(input.trim())
    setBusy(false)
    setAnswer(result)
    if (result.key) props.onJoined(result.key)
  }
  return (
    <Dialog title="Join a group" onClose={props.onClose}>
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor={id}>Group link or code</label>
          <input
            id={id}
            type="text"
            value={input}
            spellCheck={false}
            placeholder="naddr1…?invite=…  or  relay.example.com'group"
            onChange={(e) => setInput(e.target.value)}
          />
          <span className="hint">
            Paste an invite link (naddr, with or without ?invite=) or a group code.
          </span>
        </div>
        <AnswerNotice answer={answer} />
        <div className="row end">
          <button type="submit" className="btn primary" disabled={busy || !input.trim()}>
            {busy ? 'Joining…' : 'Join'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
