import { useId, useState } from 'react'
import type { GroupHandle, InviteAnswer } from '../model/api'
import { AnswerNotice, Dialog } from './Dialog'

/** 9009 create-invite, then a copyable `naddr…?invite=<code>` link. */
export function InviteDialog(props: { handle: GroupHandle; onClose: () => void }) {
  const [busy, setBusy] = useState(false)
  const [answer, setAnswer] = useState<InviteAnswer>()
  const [copied, setCopied] = useState(false)
  const id = useId()
  async function create() {
    setBusy(true)
    setCopied(false)
    setAnswer(await props.handle.createInvite())
    setBusy(false)
  }
  async function copy() {
    if (!answer?.link) return
    await navigator.clipboard?.writeText(answer.link).catch(() => undefined)
    setCopied(true)
  }
  return (
    <Dialog title="Invite people" onClose={props.onClose}>
      <p className="hint">An invite link lets someone join this group even when it is closed.</p>
      {answer?.ok && answer.link ? (
        <div className="field">
          <label htmlFor={id}>Invite link</label>
          <input
            id={id}
            type="text"
            readOnly
            value={answer.link}
            className="mono"
            onFocus={(e) => e.target.select()}
          />
          <div className="row" style={{ marginTop: 8 }}>
            <button type="button" className="btn" onClick={copy}>
              {copied ? 'Copied' : 'Copy link'}
            </button>
            <span className="hint">Code: {answer.code}</span>
          </div>
          <label htmlFor={`${id}-web`} style={{ marginTop: 12 }}>
            Web link (opens this client with the invite)
          </label>
          <input
            id={`${id}-web`}
            type="text"
            readOnly
            value={webLink(answer.link)}
            className="mono"
            onFocus={(e) => e.target.select()}
          />
        </div>
      ) : (
        <AnswerNotice answer={answer} />
      )}
      <div className="row end">
        <button type="button" className="btn primary" onClick={create} disabled={busy}>
          {busy ? 'Creating…' : answer?.ok ? 'Create another' : 'Create invite link'}
        </button>
      </div>
    </Dialog>
  )
}

/** This client's address with the invite in the hash (`#/join/…`), for people without a Nostr app. */
export function webLink(naddrLink: string): string {
  return `${location.origin}/#/join/${encodeURIComponent(naddrLink)}`
}
