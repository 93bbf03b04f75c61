import type { ForkReport } from '@roost/nip29'
import { useEffect, useState } from 'react'
import { useApp, useAppSnapshot } from '../hooks'
import type { Answer } from '../model/types'
import { AnswerNotice } from './Dialog'
import { PersonName } from './Name'
import './fork-banner.css'

function when(seconds: number): string {
  return new Date(seconds * 1000).toLocaleString()
}

/**
 * "This group also lives on X" / "This group moved to X" (NIP-29 forks), from the admins' kind
 * 10009 lists, with those lists as the evidence and a button to follow the other relay's group.
 * Following adds it as a separate group: the two timelines and their read state stay apart.
 */
export function ForkBanner(props: { groupKey: string; id: string }) {
  const app = useApp()
  const { groups } = useAppSnapshot()
  const [report, setReport] = useState<ForkReport>()
  const [answer, setAnswer] = useState<Answer>()
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    setReport(undefined)
    setAnswer(undefined)
    return app.watchForks(props.groupKey, setReport)
  }, [app, props.groupKey])

  if (!report || (report.status !== 'also-lives-on' && report.status !== 'moved')) return null
  const following = new Set(groups.map((g) => g.key))

  async function follow(relay: string) {
    setBusy(true)
    setAnswer(await app.join(`${relay}'${props.id}`))
    setBusy(false)
  }

  return (
    <section
      className="notice warn fork-banner"
      aria-label="Where this group lives"
      data-testid="fork-banner"
    >
      {report.elsewhere.map((s) => (
        <div key={s.relay} className="fork-site">
          <p className="fork-title">
            {report.status === 'moved' ? 'This group moved to ' : 'This group also lives on '}
            <strong>{s.relay}</strong>
          </p>
          {following.has(`${s.relay}'${props.id}`) ? (
            <span className="fork-following">You follow it there too.</span>
          ) : (
            <button type="button" className="btn" disabled={busy} onClick={() => void follow(s.relay)}>
              Follow it on {s.relay.replace(/^wss?:\/\//, '')}
            </button>
          )}
        </div>
      ))}
      <details className="fork-evidence">
        <summary>Evidence: the admins' group lists</summary>
        <ul>
          {report.evidence.map((e) => (
            <li key={e.listId}>
              <PersonName pubkey={e.admin} /> lists it on {e.relays.join(', ')} (list of{' '}
              {when(e.listCreatedAt)})
            </li>
          ))}
        </ul>
      </details>
      <p className="fork-note">The two are separate groups: messages and read state are not merged.</p>
      <AnswerNotice answer={answer} okText="Following it: it is in your group list." />
    </section>
  )
}
