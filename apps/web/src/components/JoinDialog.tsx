import { type FormEvent, useEffect, useId, useState } from 'react'
import { useApp } from '../hooks'
import type { JoinAnswer } from '../model/api'
import type { GroupPreview } from '../model/community'
import type { BrowseEntry } from '../model/types'
import { Avatar, PictureConsent } from './Avatar'
import './community.css'
import { AnswerNotice, Dialog } from './Dialog'
import { TwinFacts, TwinWarning } from './Lookalike'

/**
 * The relay's verdict on the previewed group when another public group there has a look-alike name
 * (a link to a copy of a well-known group is the easiest way to send someone to it).
 */
function useTwinOf(preview: GroupPreview): BrowseEntry | undefined {
  const app = useApp()
  const [entry, setEntry] = useState<BrowseEntry>()
  useEffect(() => {
    setEntry(undefined)
    if (!preview.found) return
    let live = true
    app.browse(preview.relay).then(
      (list) => live && setEntry(list.find((e) => e.id === preview.id && e.twin)),
      () => undefined,
    )
    return () => {
      live = false
    }
  }, [app, preview.relay, preview.id, preview.found])
  return entry
}

/** The group a link points at, before joining: name, picture, about, member count and access. */
function Preview(props: { preview: GroupPreview }) {
  const p = props.preview
  const twin = useTwinOf(p)
  if (!p.found)
    return (
      <p className="hint" data-testid="group-preview">
        The relay shows nothing about “{p.id}” (it may be hidden): you can still ask to join.
      </p>
    )
  return (
    <section className="group-preview" aria-label="Group preview" data-testid="group-preview">
      <Avatar name={p.name} seed={p.key} picture={p.picture} size={48} square />
      <div>
        <h3>
          <bdi className="name">{p.name}</bdi>
        </h3>
        {p.about ? <p>{p.about}</p> : null}
        <p>
          {p.memberCount !== undefined
            ? `${p.memberCount} ${p.memberCount === 1 ? 'member' : 'members'}`
            : 'Member list not published'}
          {p.closed ? ' · closed' : ' · open'}
          {p.private ? ' · private' : ''}
        </p>
        <PictureConsent picture={p.picture} />
        {twin?.twin ? (
          <>
            <TwinFacts id={p.id} origin={twin.origin} twin={twin.twin} members={false} />
            <TwinWarning name={p.name} twin={twin.twin} />
          </>
        ) : null}
      </div>
    </section>
  )
}

/**
 * Join by naddr (with or without `?invite=`) or a group code such as `relay.example.com'general`.
 * The link is previewed first; a closed group asks for the invite code before the request goes out.
 * Without one the request waits for the group's admins (or the relay refuses it), as the group's
 * banner then says.
 */
export function JoinDialog(props: {
  onClose: () => void
  onJoined: (key: string) => void
  initial?: string
}) {
  const app = useApp()
  const [input, setInput] = useState(props.initial ?? '')
  const [code, setCode] = useState('')
  const [preview, setPreview] = useState<GroupPreview>()
  const [busy, setBusy] = useState(false)
  const [answer, setAnswer] = useState<JoinAnswer>()
  const id = useId()

  useEffect(() => {
    const value = input.trim()
    setPreview(undefined)
    if (!value) return
    let live = true
    const timer = setTimeout(() => {
      app.preview(value).then(
        (p) => live && setPreview(p),
        () => undefined, // not a group reference (yet): the Join button says why
      )
    }, 250)
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [app, input])

  const needsCode = preview?.closed === true && !preview.invite
  async function submit(e: FormEvent) {
    e.preventDefault()
    setBusy(true)
    setAnswer(undefined)
    const result = await app.join(input.trim(), needsCode ? code.trim() || undefined : undefined)
    setBusy(false)
    setAnswer(result)
    // The group opens either way: a request kept for its admins says so in the group's banner.
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
        {preview ? <Preview preview={preview} /> : null}
        {preview?.invite ? (
          <p className="hint">The link carries an invite code: it is sent with your request.</p>
        ) : null}
        {needsCode ? (
          <div className="field">
            <label htmlFor={`${id}-code`}>Invite code</label>
            <input
              id={`${id}-code`}
              type="text"
              value={code}
              spellCheck={false}
              autoComplete="off"
              onChange={(e) => setCode(e.target.value)}
            />
            <span className="hint">
              This group is closed: with an invite code you are in at once. Without one your request waits for
              an admin to approve it (some relays refuse it instead).
            </span>
          </div>
        ) : null}
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
