import type { ReportType } from '@roost/nip29'
import { type FormEvent, useId, useState } from 'react'
import type { GroupHandle } from '../model/api'
import { REPORT_CHOICES, REPORT_LABELS } from '../model/reports'
import type { Answer, MessageItem } from '../model/types'
import './community.css'
import { AnswerNotice, Dialog } from './Dialog'
import { useDisplayName } from './Name'

/**
 * Reports a message, or its author, to the group's admins (NIP-56 kind 1984 with the group's
 * `h`): what, why (one of NIP-56's types) and in the reporter's words. The relay shows the report
 * to the group's admins and the reporter only.
 *
 * @example {reporting ? <ReportDialog handle={handle} message={reporting} groupName={detail.name} onClose={close} /> : null}
 */
export function ReportDialog(props: {
  handle: GroupHandle
  message: MessageItem
  groupName: string
  onClose: () => void
}) {
  const author = useDisplayName(props.message.pubkey)
  const [subject, setSubject] = useState<'message' | 'person'>('message')
  const [type, setType] = useState<ReportType>('spam')
  const [reason, setReason] = useState('')
  const [busy, setBusy] = useState(false)
  const [answer, setAnswer] = useState<Answer>()
  const id = useId()
  async function submit(e: FormEvent) {
    e.preventDefault()
    setBusy(true)
    const target = subject === 'message' ? { message: props.message.id } : { person: props.message.pubkey }
    setAnswer(await props.handle.report(target, type, reason.trim()))
    setBusy(false)
  }
  if (answer?.ok)
    return (
      <Dialog title="Report" onClose={props.onClose}>
        <p className="notice ok" role="status">
          Report sent. Only the admins of {props.groupName} see it.
        </p>
        <div className="row end">
          <button type="button" className="btn primary" onClick={props.onClose}>
            Close
          </button>
        </div>
      </Dialog>
    )
  return (
    <Dialog title="Report" onClose={props.onClose}>
      <form onSubmit={submit}>
        <fieldset className="report-subject">
          <legend>What are you reporting?</legend>
          <label>
            <input
              type="radio"
              name={`${id}-subject`}
              checked={subject === 'message'}
              onChange={() => setSubject('message')}
            />{' '}
            This message
          </label>
          <blockquote className="report-quote">{props.message.content.slice(0, 280)}</blockquote>
          <label>
            <input
              type="radio"
              name={`${id}-subject`}
              checked={subject === 'person'}
              onChange={() => setSubject('person')}
            />{' '}
            <bdi>{author}</bdi>, the person
          </label>
        </fieldset>
        <div className="field">
          <label htmlFor={`${id}-type`}>Why</label>
          <select id={`${id}-type`} value={type} onChange={(e) => setType(e.target.value as ReportType)}>
            {REPORT_CHOICES.map((t) => (
              <option key={t} value={t}>
                {REPORT_LABELS[t]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-reason`}>Details for the admins (optional)</label>
          <textarea id={`${id}-reason`} rows={3} value={reason} onChange={(e) => setReason(e.target.value)} />
          <span className="hint">Only the admins of {props.groupName} see your report.</span>
        </div>
        <AnswerNotice answer={answer} />
        <div className="row end">
          <button type="button" className="btn" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="btn primary" disabled={busy}>
            {busy ? 'Sending…' : 'Send report'}
          </button>
        </div>
      </form>
    </Dialog>
  )
}
