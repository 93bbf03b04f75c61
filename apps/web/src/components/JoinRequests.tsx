import { useState } from 'react'
import type { GroupHandle } from '../model/api'
import type { Answer, GroupDetail } from '../model/types'
import './community.css'
import { AnswerNotice } from './Dialog'
import { PersonAvatar, PersonName } from './Name'

/**
 * Join requests waiting for an admin (9021s no 9000/9001 answered): approve (9000) or dismiss
 * (this device only) in one click. Shown to admins only.
 */
export function JoinRequests(props: { handle: GroupHandle; detail: GroupDetail }) {
  const d = props.detail
  const [answer, setAnswer] = useState<Answer>()
  const [busy, setBusy] = useState<string>()
  if (!d.me?.admin || d.joinRequests.length === 0) return null
  async function approve(pubkey: string) {
    setBusy(pubkey)
    setAnswer(undefined)
    setAnswer(await props.handle.approve(pubkey))
    setBusy(undefined)
  }
  return (
    <section className="join-requests" aria-labelledby="join-requests-title">
      <h3 id="join-requests-title">Join requests · {d.joinRequests.length}</h3>
      <AnswerNotice answer={answer} okText="Approved." />
      <ul className="member-list" aria-label="Join requests">
        {d.joinRequests.map((r) => (
          <li key={r.pubkey}>
            <PersonAvatar pubkey={r.pubkey} size={28} />
            <span className="mname">
              <PersonName pubkey={r.pubkey} />
              {r.reason ? <span className="request-reason">“{r.reason}”</span> : null}
              {r.code ? <span className="role">code {r.code}</span> : null}
            </span>
            <span className="request-actions">
              <button
                type="button"
                className="btn small primary"
                disabled={busy === r.pubkey}
                onClick={() => approve(r.pubkey)}
              >
                Approve
              </button>
              <button type="button" className="btn small" onClick={() => void props.handle.dismiss(r.pubkey)}>
                Dismiss
              </button>
            </span>
          </li>
        ))}
      </ul>
    </section>
  )
}
