/**
 * Reports (NIP-56 kind 1984 with the group's `h`) as a group's admins see them: the relay shows a
 * report to the group's admins and its author only, so an admin's fetch holds every open report
 * and a member's holds their own. A report is closed by deleting it (9005), after acting on it or
 * not: the list is the same for every admin, on every device.
 */
import { parseReport, REPORT_TYPES, type ReportType } from '@roost/nip29'
import type { Filter, NostrEvent } from 'nostr-tools'

/**
 * One open report, with the message it names when the relay still has it.
 *
 * @example { id, reporter, type: 'spam', reason: 'ads', createdAt, pubkey: author, eventId, message: { content, createdAt, pubkey } }
 */
export interface ReportItem {
  /** The report's event id. */
  id: string
  reporter: string
  type: ReportType
  reason: string
  createdAt: number
  /** The reported person (a message's author, for a message). */
  pubkey: string
  /** The reported message's id, when a message was reported. */
  eventId?: string
  /** That message as the relay serves it; absent when it is gone (deleted) or not found. */
  message?: { content: string; createdAt: number; pubkey: string }
}

/** What an admin does with a report: delete the message, remove the person, or only close it. @example 'dismiss' */
export type ReportAction = 'delete' | 'remove' | 'dismiss'

/** How the report types read in the app. @example REPORT_LABELS.profanity // 'Abuse or hate' */
export const REPORT_LABELS: Readonly<Record<ReportType, string>> = {
  spam: 'Spam',
  profanity: 'Abuse or hate',
  nudity: 'Nudity',
  illegal: 'Illegal',
  impersonation: 'Impersonation',
  malware: 'Malware or phishing',
  other: 'Something else',
}

/** The types in the dialog's order (spam first: the common case). @example REPORT_CHOICES[0] // 'spam' */
export const REPORT_CHOICES: readonly ReportType[] = ['spam', ...REPORT_TYPES.filter((t) => t !== 'spam')]

/**
 * The open reports of group `groupId`, newest first, each with the message it names (asked in the
 * same group only: a report cannot pull in another group's message).
 *
 * @example
 * await loadReports((filters) => pool.fetch([relay], filters), 'general')
 * // [{ id, reporter, type: 'spam', reason, pubkey, eventId, message: { content, … } }]
 */
export async function loadReports(
  fetch: (filters: Filter[]) => Promise<NostrEvent[]>,
  groupId: string,
): Promise<ReportItem[]> {
  const events = await fetch([{ kinds: [1984], '#h': [groupId], limit: 500 }])
  const inGroup = events.filter((e) => e.tags.some((t) => t[0] === 'h' && t[1] === groupId))
  const reports = [...new Map(inGroup.map((e) => [e.id, e])).values()]
    .map(parseReport)
    .filter((r) => r !== undefined)
    .sort((a, b) => b.event.created_at - a.event.created_at || (a.event.id < b.event.id ? -1 : 1))
  const ids = [...new Set(reports.flatMap((r) => (r.eventId ? [r.eventId] : [])))]
  const messages = new Map<string, NostrEvent>()
  if (ids.length > 0)
    for (const m of await fetch([{ ids, '#h': [groupId] }])) if (ids.includes(m.id)) messages.set(m.id, m)
  return reports.map((r) => {
    const m = r.eventId ? messages.get(r.eventId) : undefined
    return {
      id: r.event.id,
      reporter: r.reporter,
      type: r.type,
      reason: r.reason,
      createdAt: r.event.created_at,
      pubkey: r.pubkey,
      ...(r.eventId ? { eventId: r.eventId } : {}),
      ...(m ? { message: { content: m.content, createdAt: m.created_at, pubkey: m.pubkey } } : {}),
    }
  })
}

/**
 * The reports an action closes: the one acted on, and every other open report about the same
 * message (deleted) or person (removed), since the action answers them too.
 *
 * @example
 * closedBy(report, 'remove', open) // ids of every open report naming report.pubkey
 */
export function closedBy(report: ReportItem, action: ReportAction, open: readonly ReportItem[]): string[] {
  const also =
    action === 'delete' && report.eventId
      ? open.filter((r) => r.eventId === report.eventId)
      : action === 'remove'
        ? open.filter((r) => r.pubkey === report.pubkey)
        : []
  return [...new Set([report.id, ...also.map((r) => r.id)])]
}
