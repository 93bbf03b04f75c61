import type { EventTemplate, NostrEvent } from 'nostr-tools'
import { InvalidArgumentError } from './errors'
import { isHex64 } from './hex'
import { KINDS } from './kinds'
import { type BuilderOptions, groupTemplate } from './template'

/** NIP-56 report types, in the NIP's order. @example REPORT_TYPES.includes('spam') // true */
export const REPORT_TYPES = [
  'nudity',
  'malware',
  'profanity',
  'illegal',
  'spam',
  'impersonation',
  'other',
] as const

/** One of {@link REPORT_TYPES}. @example const t: ReportType = 'impersonation' */
export type ReportType = (typeof REPORT_TYPES)[number]

/** What a report names: a message (its id and author) or a person. @example { event: message } */
export type ReportTarget =
  | {
      /** The reported message. */
      event: {
        /** Hex id of the message. */
        id: string
        /** Hex pubkey of its author. */
        pubkey: string
      }
    }
  | {
      /** Hex pubkey of the reported person. */
      pubkey: string
    }

/** Options of {@link GroupId.report}. @example { type: 'spam', reason: 'the same link ten times' } */
export interface ReportOptions extends BuilderOptions {
  /** What kind of problem (NIP-56: `spam`, `illegal`, …). */
  type: ReportType
  /** Why, in the reporter's words (the report's `content`). */
  reason?: string
}

/**
 * A kind 1984 report (NIP-56) inside a group: `["e", id, type]` and `["p", author]` for a message,
 * `["p", pubkey, type]` for a person, the reason as content, and the group's `h`. A relay that
 * follows the reports rule shows it to the group's admins only.
 *
 * @example buildReport('general', { event: message }, { type: 'spam', reason: 'ads' })
 */
export function buildReport(id: string, target: ReportTarget, opts: ReportOptions): EventTemplate {
  if (!opts || !(REPORT_TYPES as readonly string[]).includes(opts.type))
    throw new InvalidArgumentError('type', `the report type must be one of ${REPORT_TYPES.join(', ')}`)
  const reason = opts.reason ?? ''
  if (typeof reason !== 'string') throw new InvalidArgumentError('reason', 'the reason must be a string')
  let tags: string[][]
  if ('event' in target) {
    if (!isHex64(target.event.id) || !isHex64(target.event.pubkey))
      throw new InvalidArgumentError('target', 'a reported message needs its id and author (64 hex each)')
    tags = [
      ['e', target.event.id, opts.type],
      ['p', target.event.pubkey],
    ]
  } else {
    if (!isHex64(target.pubkey))
      throw new InvalidArgumentError('target', 'a reported person is a 64-hex pubkey')
    tags = [['p', target.pubkey, opts.type]]
  }
  return groupTemplate(KINDS.report, id, reason, tags, opts)
}

/** A report as an admin reads it. @example parseReport(event) // { reporter, type: 'spam', eventId, pubkey, reason, event } */
export interface Report {
  /** The 1984 event itself. */
  readonly event: NostrEvent
  /** Who reported. */
  readonly reporter: string
  /** What kind of problem the reporter chose. */
  readonly type: ReportType
  /** The reported message, when a message was reported. */
  readonly eventId?: string
  /** The reported person (the message's author, for a message). */
  readonly pubkey: string
  /** What the reporter wrote (the event's content). */
  readonly reason: string
}

/**
 * Reads a kind 1984 event; undefined when it names neither a message nor a person. An unknown
 * type reads as `other`.
 *
 * @example parseReport(event)?.type // 'spam'
 */
export function parseReport(event: NostrEvent): Report | undefined {
  if (event.kind !== KINDS.report) return undefined
  const e = event.tags.find((t) => t[0] === 'e' && isHex64(t[1] ?? ''))
  const ps = event.tags.filter((t) => t[0] === 'p' && isHex64(t[1] ?? ''))
  const p = ps.find((t) => t[2] !== undefined) ?? ps[0]
  if (!p) return undefined
  const named = e?.[2] ?? p[2]
  const type = (REPORT_TYPES as readonly string[]).includes(named ?? '') ? (named as ReportType) : 'other'
  return {
    event,
    reporter: event.pubkey,
    type,
    ...(e && { eventId: e[1] as string }),
    pubkey: p[1] as string,
    reason: event.content,
  }
}
