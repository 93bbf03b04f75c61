import { useId, useState } from 'react'
import { formatFull } from '../lib/format'
import type { GroupHandle, InviteAnswer, InviteTerms } from '../model/api'
import './community.css'
import { AnswerNotice, Dialog } from './Dialog'

/** How many people an invite admits: the choices offered ('unlimited': anyone with the link). */
const USES: readonly { value: string; label: string }[] = [
  { value: '1', label: 'One person' },
  { value: '5', label: 'Up to 5 people' },
  { value: '10', label: 'Up to 10 people' },
  { value: '25', label: 'Up to 25 people' },
  { value: '100', label: 'Up to 100 people' },
  { value: 'unlimited', label: 'Anyone with the link' },
]

/** When an invite stops admitting anyone, in seconds from now ('' : never). */
const EXPIRY: readonly { value: string; label: string }[] = [
  { value: '', label: 'Never' },
  { value: '3600', label: 'In 1 hour' },
  { value: '86400', label: 'In 1 day' },
  { value: '604800', label: 'In 7 days' },
  { value: '2592000', label: 'In 30 days' },
]

/**
 * What an invite admits, in words.
 *
 * @example
 * inviteTermsText({ uses: 10, expiresAt }) // 'Admits up to 10 people · expires 12 May 2026, 14:00'
 */
export function inviteTermsText(answer: Pick<InviteAnswer, 'uses' | 'expiresAt'>): string {
  const uses = answer.uses ?? 1
  const who =
    uses === 'unlimited'
      ? 'Admits anyone with the link'
      : uses === 1
        ? 'Admits one person'
        : `Admits up to ${uses} people`
  return answer.expiresAt ? `${who} · expires ${formatFull(answer.expiresAt)}` : `${who} · does not expire`
}

/**
 * 9009 create-invite with its terms (how many people, until when: the relay honours them exactly),
 * then a copyable `naddr…?invite=<code>` link and what it admits.
 *
 * @example {dialog === 'invite' ? <InviteDialog handle={handle} onClose={close} /> : null}
 */
export function InviteDialog(props: { handle: GroupHandle; onClose: () => void }) {
  const [busy, setBusy] = useState(false)
  const [answer, setAnswer] = useState<InviteAnswer>()
  const [copied, setCopied] = useState(false)
  const [uses, setUses] = useState('1')
  const [expiry, setExpiry] = useState('')
  const id = useId()
  async function create() {
    setBusy(true)
    setCopied(false)
    const terms: InviteTerms = {
      ...(uses !== '1' && { uses: uses === 'unlimited' ? 'unlimited' : Number(uses) }),
      ...(expiry !== '' && { expiresAt: Math.floor(Date.now() / 1000) + Number(expiry) }),
    }
    setAnswer(await props.handle.createInvite(terms))
    setBusy(false)
  }
  async function copy() {
    if (!answer?.link) return
    await navigator.clipboard?.writeText(answer.link).catch(() => undefined)
    setCopied(true)
  }
  return (
    <Dialog title="Invite people" onClose={props.onClose}>
      <p className="hint">An invite link lets people join this group even when it is closed.</p>
      <div className="invite-terms">
        <div className="field">
          <label htmlFor={`${id}-uses`}>Who can use it</label>
          <select id={`${id}-uses`} value={uses} onChange={(e) => setUses(e.target.value)}>
            {USES.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-expiry`}>Expires</label>
          <select id={`${id}-expiry`} value={expiry} onChange={(e) => setExpiry(e.target.value)}>
            {EXPIRY.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
      </div>
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
          <p className="invite-made" role="status" data-testid="invite-terms">
            {inviteTermsText(answer)}. Code: <span className="mono">{answer.code}</span>
          </p>
          <div className="row" style={{ marginTop: 8 }}>
            <button type="button" className="btn" onClick={copy}>
              {copied ? 'Copied' : 'Copy link'}
            </button>
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
