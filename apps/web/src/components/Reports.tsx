import { useEffect, useState } from 'react'
import { formatFull } from '../lib/format'
import type { GroupHandle } from '../model/api'
import { REPORT_LABELS, type ReportAction, type ReportItem } from '../model/reports'
import type { Answer, GroupDetail } from '../model/types'
import './community.css'
import { AnswerNotice } from './Dialog'
import { PersonName, useDisplayName } from './Name'

/**
 * The group's open reports, for its admins: who reported whom or which message and why, the
 * message itself, and the three answers — delete the message, remove the person, dismiss. Each
 * closes the report for every admin (a 9005 of it); the list is read again when a report or a
 * deletion arrives.
 *
 * @example <Reports handle={props.handle} detail={d} />
 */
export function Reports(props: { handle: GroupHandle; detail: GroupDetail }) {
  const d = props.detail
  const admin = d.me?.admin === true
  const [items, setItems] = useState<ReportItem[]>()
  const [answer, setAnswer] = useState<Answer>()
  const [busy, setBusy] = useState<string>()
  const [asked, setAsked] = useState(0)
  const { handle } = props
  // biome-ignore lint/correctness/useExhaustiveDependencies: read again when reports arrive or after an action
  useEffect(() => {
    if (!admin) return
    let live = true
    handle.reports().then(
      (list) => live && setItems(list),
      () => undefined,
    )
    return () => {
      live = false
    }
  }, [admin, handle, d.reportsSeen, asked])
  if (!admin || !items || (items.length === 0 && !answer)) return null
  async function act(report: ReportItem, action: ReportAction) {
    setBusy(report.id)
    setAnswer(undefined)
    setAnswer(await handle.resolveReport(report, action))
    setBusy(undefined)
    setAsked((n) => n + 1)
  }
  const adminKeys = new Set(d.members.filter((m) => m.admin).map((m) => m.pubkey))
  return (
    <section className="reports" aria-labelledby="reports-title">
      <h3 id="reports-title">Reports · {items.length}</h3>
      <AnswerNotice answer={answer} />
      {items.length > 0 ? (
        <ul className="report-list" aria-label="Reports">
          {items.map((r) => (
            <ReportRow
              key={r.id}
              report={r}
              busy={busy === r.id}
              canRemove={!adminKeys.has(r.pubkey)}
              onAct={(action) => act(r, action)}
            />
          ))}
        </ul>
      ) : null}
    </section>
  )
}

function ReportRow(props: {
  report: ReportItem
  busy: boolean
  canRemove: boolean
  onAct: (action: ReportAction) => void
}) {
  const r = props.report
  const name = useDisplayName(r.pubkey)
  return (
    <li>
      <div className="report-head">
        <PersonName pubkey={r.reporter} /> reported {r.eventId ? 'a message by ' : ''}
        <PersonName pubkey={r.pubkey} />
        <span className="role">{REPORT_LABELS[r.type]}</span>
        <time className="hint" dateTime={new Date(r.createdAt * 1000).toISOString()}>
          {formatFull(r.createdAt)}
        </time>
      </div>
      {r.reason ? <p className="request-reason">“{r.reason}”</p> : null}
      {r.eventId ? (
        r.message ? (
          <blockquote className="report-quote">{r.message.content}</blockquote>
        ) : (
          <p className="hint">The message is no longer on the relay.</p>
        )
      ) : null}
      <div className="request-actions">
        {r.message ? (
          <button
            type="button"
            className="btn small danger"
            disabled={props.busy}
            onClick={() => props.onAct('delete')}
          >
            Delete message
          </button>
        ) : null}
        {props.canRemove ? (
          <button
            type="button"
            className="btn small danger"
            disabled={props.busy}
            aria-label={`Remove ${name} from the group`}
            onClick={() => props.onAct('remove')}
          >
            Remove <bdi>{name}</bdi>
          </button>
        ) : null}
        <button
          type="button"
          className="btn small"
          disabled={props.busy}
          onClick={() => props.onAct('dismiss')}
        >
          Dismiss
        </button>
      </div>
    </li>
  )
}
