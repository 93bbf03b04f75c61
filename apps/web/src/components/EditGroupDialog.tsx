import { type FormEvent, useId, useState } from 'react'
import type { GroupHandle } from '../model/api'
import type { Answer, GroupDetail } from '../model/types'
import { AnswerNotice, Dialog } from './Dialog'

/** 9002 edit-metadata, for admins; shows the relay's answer. */
export function EditGroupDialog(props: { handle: GroupHandle; detail: GroupDetail; onClose: () => void }) {
  const d = props.detail
  const [name, setName] = useState(d.name)
  const [about, setAbout] = useState(d.about ?? '')
  const [picture, setPicture] = useState(d.picture ?? '')
  const [isPrivate, setPrivate] = useState(d.flags.private)
  const [closed, setClosed] = useState(d.flags.closed)
  const [restricted, setRestricted] = useState(d.flags.restricted)
  const [hidden, setHidden] = useState(d.flags.hidden)
  const [busy, setBusy] = useState(false)
  const [answer, setAnswer] = useState<Answer>()
  const ids = { name: useId(), about: useId(), picture: useId() }
  async function submit(e: FormEvent) {
    e.preventDefault()
    setBusy(true)
    setAnswer(undefined)
    setAnswer(
      await props.handle.editMetadata({
        name: name.trim(),
        about: about.trim(),
        picture: picture.trim(),
        private: isPrivate,
        closed,
        restricted,
        hidden,
      }),
    )
    setBusy(false)
  }
  return (
    <Dialog title="Edit group" onClose={props.onClose}>
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor={ids.name}>Name</label>
          <input id={ids.name} type="text" value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={ids.about}>About</label>
          <textarea id={ids.about} rows={3} value={about} onChange={(e) => setAbout(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={ids.picture}>Picture URL</label>
          <input
            id={ids.picture}
            type="url"
            value={picture}
            placeholder="https://…"
            onChange={(e) => setPicture(e.target.value)}
          />
        </div>
        <label className="check">
          <input type="checkbox" checked={isPrivate} onChange={(e) => setPrivate(e.target.checked)} />
          <span>Private (only members can read)</span>
        </label>
        <label className="check">
          <input type="checkbox" checked={closed} onChange={(e) => setClosed(e.target.checked)} />
          <span>Closed (joining needs an invite code)</span>
        </label>
        <label className="check">
          <input type="checkbox" checked={restricted} onChange={(e) => setRestricted(e.target.checked)} />
          <span>Restricted (only members can write)</span>
        </label>
        <label className="check">
          <input type="checkbox" checked={hidden} onChange={(e) => setHidden(e.target.checked)} />
          <span>Hidden (the relay does not show the metadata to non-members)</span>
        </label>
        <AnswerNotice answer={answer} okText="Saved." />
        <div className="row end">
          <button type="submit" className="btn primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
