import { type FormEvent, useId, useState } from 'react'
import { useApp, useAppSnapshot } from '../hooks'
import { moveTargets } from '../lib/group-tree'
import type { GroupHandle } from '../model/api'
import type { Answer, GroupDetail } from '../model/types'
import './community.css'
import { AnswerNotice, Dialog } from './Dialog'

function CopyField(props: { label: string; value: string }) {
  const id = useId()
  const [copied, setCopied] = useState(false)
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <div className="share-row">
        <input
          id={id}
          type="text"
          readOnly
          value={props.value}
          className="mono"
          onFocus={(e) => e.target.select()}
        />
        <button
          type="button"
          className="btn small"
          onClick={async () => {
            await navigator.clipboard?.writeText(props.value).catch(() => undefined)
            setCopied(true)
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
    </div>
  )
}

/**
 * "Copy link": the group's naddr (with the relay hint) and this client's web link that opens the
 * join dialog with a preview. Every member may share; an invite code is the admins' (Invite people).
 */
export function ShareDialog(props: { detail: GroupDetail; onClose: () => void }) {
  const share = props.detail.share
  return (
    <Dialog title="Share this group" onClose={props.onClose}>
      {share ? (
        <>
          <CopyField label="Group link (naddr)" value={share.naddr} />
          <CopyField label="Web link (opens this client's join page)" value={share.web} />
          <p className="hint">
            {props.detail.flags.closed
              ? 'This group is closed: people also need an invite code from an admin to join.'
              : 'Anyone with the link can see the group and join it.'}
          </p>
        </>
      ) : (
        <p className="notice warn">
          The relay has not sent this group's metadata yet, so there is no link to share.
        </p>
      )}
    </Dialog>
  )
}

/** A subgroup of this group: 9007, then a 9002 with `parent` (the relay checks we admin the parent). */
export function SubgroupDialog(props: { detail: GroupDetail; onClose: () => void }) {
  const app = useApp()
  const [name, setName] = useState('')
  const [busy, setBusy] = useState(false)
  const [answer, setAnswer] = useState<Answer>()
  const id = useId()
  async function submit(e: FormEvent) {
    e.preventDefault()
    setBusy(true)
    setAnswer(undefined)
    const result = await app.createGroup(props.detail.relay, {
      name: name.trim(),
      private: props.detail.flags.private,
      closed: props.detail.flags.closed,
      parent: props.detail.id,
    })
    setBusy(false)
    setAnswer(result.ok ? { ok: true, message: `Subgroup created under ${props.detail.name}.` } : result)
  }
  return (
    <Dialog title="New subgroup" onClose={props.onClose}>
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor={id}>Subgroup name</label>
          <input id={id} type="text" value={name} onChange={(e) => setName(e.target.value)} />
          <span className="hint">
            It hangs under {props.detail.name}. Members and roles are not inherited: people join it on their
            own.
          </span>
        </div>
        <AnswerNotice answer={answer} />
        <div className="row end">
          <button type="submit" className="btn primary" disabled={busy || !name.trim()}>
            {busy ? 'Creating…' : 'Create subgroup'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}

/** Moves the group under another group of the same relay, or to the top level (9002 `parent`). */
export function MoveDialog(props: { handle: GroupHandle; detail: GroupDetail; onClose: () => void }) {
  const snap = useAppSnapshot()
  const d = props.detail
  const [parent, setParent] = useState(d.parent ?? '')
  const [busy, setBusy] = useState(false)
  const [answer, setAnswer] = useState<Answer>()
  const id = useId()
  const choices = moveTargets(snap.groups, d)
  async function submit(e: FormEvent) {
    e.preventDefault()
    setBusy(true)
    setAnswer(undefined)
    setAnswer(await props.handle.moveUnder(parent || undefined))
    setBusy(false)
  }
  return (
    <Dialog title="Move group" onClose={props.onClose}>
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor={id}>Parent group</label>
          <select id={id} value={parent} onChange={(e) => setParent(e.target.value)}>
            <option value="">None (top level)</option>
            {choices.map((g) => (
              <option key={g.key} value={g.id}>
                {g.name}
              </option>
            ))}
          </select>
          <span className="hint">
            {choices.length > 0
              ? 'The groups of this relay where you are an admin, other than this one and its subgroups.'
              : 'You are an admin of no other group on this relay: this group can only stay at the top level.'}
          </span>
        </div>
        <AnswerNotice answer={answer} />
        <div className="row end">
          <button type="submit" className="btn primary" disabled={busy}>
            {busy ? 'Moving…' : 'Move'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}

/** Deletes the group for everyone (9008) after typing its name; the relay's answer is shown. */
export function DeleteGroupDialog(props: { handle: GroupHandle; detail: GroupDetail; onClose: () => void }) {
  const [typed, setTyped] = useState('')
  const [busy, setBusy] = useState(false)
  const [answer, setAnswer] = useState<Answer>()
  const id = useId()
  const name = props.detail.name
  async function submit(e: FormEvent) {
    e.preventDefault()
    if (typed !== name) return
    setBusy(true)
    setAnswer(undefined)
    const result = await props.handle.deleteGroup()
    setBusy(false)
    setAnswer(result)
    if (result.ok) location.hash = '#/'
  }
  return (
    <Dialog title="Delete group" onClose={props.onClose}>
      <form onSubmit={submit}>
        <p className="notice error">
          This deletes {name} and its messages on the relay for everyone. It cannot be undone.
        </p>
        <div className="field">
          <label htmlFor={id}>Type the group name ({name}) to confirm</label>
          <input
            id={id}
            type="text"
            value={typed}
            autoComplete="off"
            onChange={(e) => setTyped(e.target.value)}
          />
        </div>
        <AnswerNotice answer={answer} />
        <div className="row end">
          <button type="submit" className="btn danger" disabled={busy || typed !== name}>
            {busy ? 'Deleting…' : 'Delete group'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
