import { type FormEvent, useId, useState } from 'react'
import { useApp, useAppSnapshot } from '../hooks'
import type { Answer } from '../model/types'
import { AnswerNotice, Dialog } from './Dialog'

/** 9007 (create), then 9002 with the chosen name and flags, then the group opens. */
export function CreateGroupDialog(props: { onClose: () => void; onCreated: (key: string) => void }) {
  const app = useApp()
  const snap = useAppSnapshot()
  const [relay, setRelay] = useState(snap.relays[0] ?? '')
  const [name, setName] = useState('')
  const [about, setAbout] = useState('')
  const [isPrivate, setPrivate] = useState(false)
  const [closed, setClosed] = useState(false)
  const [busy, setBusy] = useState(false)
  const [answer, setAnswer] = useState<Answer>()
  const ids = { relay: useId(), name: useId(), about: useId() }
  async function submit(e: FormEvent) {
    e.preventDefault()
    setBusy(true)
    setAnswer(undefined)
    const result = await app.createGroup(relay, {
      name: name.trim(),
      about: about.trim(),
      private: isPrivate,
      closed,
    })
    setBusy(false)
    setAnswer(result)
    if (result.ok && result.key) props.onCreated(result.key)
  }
  return (
    <Dialog title="Create a group" onClose={props.onClose}>
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor={ids.relay}>Relay</label>
          <select
            id={ids.relay}
            value={relay}
            onChange={(e) => setRelay(e.target.value)}
            style={{ padding: 8, borderRadius: 8 }}
          >
            {snap.relays.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.name}>Name</label>
          <input id={ids.name} type="text" value={name} required onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={ids.about}>About</label>
          <textarea id={ids.about} rows={2} value={about} onChange={(e) => setAbout(e.target.value)} />
        </div>
        <label className="check">
          <input type="checkbox" checked={isPrivate} onChange={(e) => setPrivate(e.target.checked)} />
          <span>
            Private <span className="hint">— only members can read</span>
          </span>
        </label>
        <label className="check">
          <input type="checkbox" checked={closed} onChange={(e) => setClosed(e.target.checked)} />
          <span>
            Closed <span className="hint">— joining needs an invite code</span>
          </span>
        </label>
        <AnswerNotice answer={answer} okText="Group created." />
        <div className="row end">
          <button type="submit" className="btn primary" disabled={busy || !name.trim() || !relay}>
            {busy ? 'Creating…' : 'Create group'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
