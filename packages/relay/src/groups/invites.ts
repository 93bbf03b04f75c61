import type { ProfilePolicy } from '../profiles'
import type { GroupRecord, InviteTerms } from './record'

type Tags = readonly (readonly string[])[]

/** The most joins one code may be given with `["uses", n]`. @example ['uses', String(MAX_USES)] */
export const MAX_USES = 1_000_000

/**
 * The terms a 9009 sets for its codes, as the profile reads them:
 * - `["uses", "<n>"]`: each code admits n joins (1 to {@link MAX_USES});
 * - `["reusable"]` (groups_relay's tag): any number of joins;
 * - `["expiration", "<unix seconds>"]` (NIP-40): from then on the codes admit nobody.
 * Without any of them a code is single-use, as NIP-29 relays have it. Under `reusable` only that
 * tag counts (groups_relay); under `single-use`, `rejected` and `ignored` none does. `undefined`
 * terms mean single-use; a malformed tag is a `detail` for `error: invalid moderation action: …`
 * (an expiry already past is the intake's to refuse: it knows the time).
 *
 * @example
 * inviteTerms([['h', 'g'], ['code', 'x'], ['uses', '25']], PROFILES.roost) // { ok: true, terms: { left: 25 } }
 */
export function inviteTerms(
  tags: Tags,
  policy: Pick<ProfilePolicy, 'invites'>,
): { ok: true; terms?: InviteTerms } | { ok: false; detail: string } {
  if (policy.invites !== 'terms' && policy.invites !== 'reusable') return { ok: true }
  const reusable = tags.some((t) => t[0] === 'reusable')
  if (policy.invites === 'reusable') return { ok: true, ...(reusable && { terms: {} }) }
  const uses = tags.find((t) => t[0] === 'uses')
  const expiration = tags.find((t) => t[0] === 'expiration')
  let left: number | undefined
  if (uses) {
    left = wholeNumber(uses[1])
    if (left === undefined || left < 1 || left > MAX_USES)
      return { ok: false, detail: `'uses' must be a whole number from 1 to ${MAX_USES}` }
  }
  let expires: number | undefined
  if (expiration) {
    expires = wholeNumber(expiration[1])
    if (expires === undefined) return { ok: false, detail: "'expiration' must be a unix timestamp" }
  }
  if (left === undefined && !reusable && expires === undefined) return { ok: true }
  // `uses` bounds a `reusable` code; `reusable` alone is unbounded; `expiration` alone keeps one use.
  const terms: InviteTerms = {
    ...(left !== undefined ? { left } : !reusable && { left: 1 }),
    ...(expires !== undefined && { expires }),
  }
  return { ok: true, terms }
}

function wholeNumber(s: string | undefined): number | undefined {
  if (s === undefined || !/^\d{1,15}$/.test(s)) return undefined
  return Number(s)
}

/** The terms of an outstanding code (undefined: single-use, or no such code). @example termsOf(group, 'welcome') // { left: 25 } */
export function termsOf(g: GroupRecord, code: string): InviteTerms | undefined {
  return g.inviteTerms && Object.hasOwn(g.inviteTerms, code) ? g.inviteTerms[code] : undefined
}

/**
 * What a join's code is worth now: `valid` (it admits this join), `expired`, or `unknown` (not
 * outstanding: wrong, spent, or the profile honours no codes).
 *
 * @example
 * inviteStatus(group, 'welcome', now, PROFILES.roost) // 'valid'
 */
export function inviteStatus(
  g: GroupRecord,
  code: string | undefined,
  now: number,
  policy: Pick<ProfilePolicy, 'invites'>,
): 'valid' | 'expired' | 'unknown' {
  if (!code || policy.invites === 'rejected' || policy.invites === 'ignored') return 'unknown'
  if (!g.invites.includes(code)) return 'unknown'
  const terms = termsOf(g, code)
  if (terms?.expires !== undefined && now >= terms.expires) return 'expired'
  return 'valid'
}

/**
 * True when a code admits one join only (its use may be named in the relay's 9000, as pyramid does).
 * @example singleUse(group, 'once') // true
 */
export function singleUse(g: GroupRecord, code: string): boolean {
  const terms = termsOf(g, code)
  return terms === undefined || terms.left === 1
}

/**
 * The record after one join with `code`: one use fewer, and the code gone once none is left.
 *
 * @example
 * spendInvite(group, 'welcome').inviteTerms?.welcome // { left: 24 } after { left: 25 }
 */
export function spendInvite(g: GroupRecord, code: string): GroupRecord {
  if (!g.invites.includes(code)) return g
  const terms = termsOf(g, code)
  if (terms && terms.left === undefined) return g
  if (terms?.left !== undefined && terms.left > 1)
    return { ...g, inviteTerms: { ...g.inviteTerms, [code]: { ...terms, left: terms.left - 1 } } }
  return withoutCodes(g, [code])
}

/**
 * The record after a 9009 dated `at` created `codes` with `terms` (undefined: single-use): a code
 * given again takes the new terms. Codes whose expiry has passed by then are dropped.
 *
 * @example
 * addInvites(group, ['welcome'], { left: 25 }, now).invites // [..., 'welcome']
 */
export function addInvites(
  g: GroupRecord,
  codes: readonly string[],
  terms: InviteTerms | undefined,
  at: number,
): GroupRecord {
  const expired = g.invites.filter((c) => {
    const t = termsOf(g, c)
    return t?.expires !== undefined && at >= t.expires
  })
  const kept = withoutCodes(g, [...expired, ...codes])
  const invites = [...kept.invites, ...new Set(codes)]
  const rest = kept.inviteTerms ?? {}
  const next = terms ? { ...rest, ...Object.fromEntries(codes.map((c) => [c, terms])) } : rest
  return { ...kept, invites, ...(Object.keys(next).length > 0 ? { inviteTerms: next } : noTerms) }
}

const noTerms = { inviteTerms: undefined }

/** The record without these codes (and their terms). @example withoutCodes(group, ['spent']).invites */
export function withoutCodes(g: GroupRecord, codes: readonly string[]): GroupRecord {
  if (codes.length === 0) return g
  const drop = new Set(codes)
  const invites = g.invites.filter((c) => !drop.has(c))
  if (!g.inviteTerms) return { ...g, invites }
  const rest = Object.fromEntries(Object.entries(g.inviteTerms).filter(([c]) => !drop.has(c)))
  return { ...g, invites, inviteTerms: Object.keys(rest).length > 0 ? rest : undefined }
}
