import type { EventTemplate, NostrEvent } from 'nostr-tools'
import type { ProfilePolicy } from '../profiles'
import { isModerationKind, parseAction } from './actions'
import { inviteStatus, inviteTerms, singleUse } from './invites'
import { LOCAL_CHAT_CLOSED, LOCAL_GROUP } from './local-chat'
import { adminsOf, type GroupRecord, hasRole, isMember, rolesOf } from './record'
import { ROLE_GRANTS } from './render'
import { checkParenting } from './subgroups'

/** What the intake rules need to know besides the event: injected so the rules stay pure. */
export interface IntakeContext {
  readonly policy: ProfilePolicy
  readonly relayKey: string
  readonly now: number
  /** Late-publication window in seconds (0 or undefined: off). */
  readonly lateWindow: number | undefined
  readonly previousMinimum: number
  /** Events dated more than this many seconds ahead are refused, whatever their kind (0 or undefined: off). */
  readonly futureWindow?: number
  /** Pubkeys authenticated on the sending connection. */
  readonly authed: ReadonlySet<string>
  group(id: string): GroupRecord | undefined
  /** The last 50 events stored for the group, newest first. */
  ring(groupId: string): readonly { id: string; pubkey: string }[]
  /** A stored event by id (9005 targets). */
  findEvent(id: string): { pubkey: string; group?: string } | undefined
  /** True when any 9001 in any group names `pubkey` (relay29's rejoin check). */
  removedAnywhere(pubkey: string): boolean
  /** Join requests a group keeps waiting at most (undefined: no cap). */
  readonly maxPendingJoins?: number
  /** The relay-local group `_` is open: anyone may post in it (off: every event for `_` is refused). */
  readonly localChat?: boolean
}

/** An event the relay refuses, answers with NOTICE instead (groups_relay), or leaves unanswered. */
export interface Refusal {
  readonly ok: false
  readonly reason: string
  /** Send `["NOTICE", reason]` and no OK. */
  readonly notice?: boolean
  /** Send nothing at all. */
  readonly silent?: boolean
}

/** An accepted event and what must follow it. */
export interface Acceptance {
  readonly ok: true
  /** Text of the OK (empty by default). */
  readonly message?: string
  /** Relay-signed events to sign, store, apply and broadcast after this one (h tag included). */
  readonly followUps: EventTemplate[]
  /** Record the sender as a pending join. */
  readonly pendingJoin?: boolean
  /** The join spends one use of this invite code. */
  readonly spendInvite?: string
  /** Remove the sender without a 9001 (groups_relay's leave). */
  readonly dropSender?: boolean
  /** The event is a moderation action to apply to the group. */
  readonly moderation?: boolean
  /** The group the event belongs to (undefined: not a group event). */
  readonly group?: string
}

export type Verdict = Refusal | Acceptance

const refuse = (reason: string, extra?: { notice?: boolean; silent?: boolean }): Refusal => ({
  ok: false,
  reason,
  ...extra,
})
/** A `previous` value: 8 hex characters as the spec writes them, up to a whole id (relay29). */
const HEX_PREFIX = /^[0-9a-f]{8,64}$/

/** The group id an event is addressed to: its first `h` value. */
export function groupOf(event: Pick<NostrEvent, 'tags'>): string | undefined {
  return event.tags.find((t) => t[0] === 'h')?.[1]
}

/**
 * Checklist rules 5–23 for an event that is already verified, not a duplicate and not signed by the
 * relay key, in the checklist's order. Pure: every fact comes from `ctx`.
 *
 * @example
 * const v = checkGroupEvent(event, ctx)
 * if (!v.ok) send(['OK', event.id, false, v.reason])
 */
export function checkGroupEvent(
  event: NostrEvent,
  ctx: IntakeContext,
  nonGroupKinds: ReadonlySet<number>,
): Verdict {
  const { policy, now } = ctx
  const m = policy.messages
  const kind = event.kind
  if (kind >= 39000 && kind <= 39005) return refuse(m.metadataDirect)
  if (event.tags.filter((t) => t[0] === 'h').length > 1)
    return refuse('invalid: an event may carry only one h tag')
  const future = ctx.futureWindow
  if (future !== undefined && future > 0 && event.created_at > now + future)
    return refuse('invalid: created_at is too far in the future')
  const id = groupOf(event)
  if (id === undefined) {
    if (nonGroupKinds.has(kind)) return { ok: true, followUps: [] }
    return refuse(m.missingH)
  }
  if (id === LOCAL_GROUP && !ctx.localChat) return refuse(LOCAL_CHAT_CLOSED)
  const timing = checkTiming(event, ctx)
  if (kind === 9007) {
    if (policy.forbidDotDot && id.includes('..')) return refuse("invalid: group id must not contain '..'")
    if (id === '') return refuse('invalid: group id must not be empty')
    const existing = ctx.group(id)
    if (existing && !existing.deleted) return refuse(m.groupExists)
    if (existing?.deleted) return refuse(m.deletedGroupExists)
    if (policy.createRequiresAuth) {
      if (ctx.authed.size === 0) return refuse('auth-required: must authenticate before creating a group')
      if (!ctx.authed.has(event.pubkey)) return refuse('restricted: auth and event pubkey mismatch')
    }
    if (timing) return timing
    return {
      ok: true,
      group: id,
      moderation: true,
      followUps: [relayEvent(9000, id, [['p', event.pubkey, 'admin']], now)],
    }
  }
  const g = ctx.group(id)
  if (!g || g.deleted) {
    if (policy.unmanagedGroups && !g) return { ok: true, followUps: [] }
    return refuse(m.unknownGroup(id))
  }
  if (timing) return timing
  const member = isMember(g, event.pubkey)
  if (policy.hidden === 'everything' && g.hidden && !member && kind !== 9022)
    return refuse(m.unknownGroup(id))
  if (kind === 9021) return checkJoin(event, g, ctx)
  if (kind === 9022) return checkLeave(event, g, ctx)

  const followUps: EventTemplate[] = []
  // The relay-local chat is everyone's: no join needed to post, whatever the profile's write rule.
  const everyone = id === LOCAL_GROUP && !isModerationKind(kind)
  if (!member && !everyone) {
    const closedOrRestricted = g.closed || (policy.restrictedEnforced && g.restricted)
    if (policy.writes === 'members-only') return refuse(m.notMember(event.pubkey))
    if (policy.writes === 'restricted-or-closed' && closedOrRestricted)
      return refuse(m.notMember(event.pubkey))
    if ((policy.writes === 'closed-only' || policy.writes === 'auto-join') && g.closed)
      return refuse(m.notMember(event.pubkey))
  }
  let moderation = false
  if (isModerationKind(kind)) {
    const verdict = checkModeration(event, g, ctx)
    if (verdict) return verdict
    moderation = true
  } else if (!member && !everyone && policy.writes === 'auto-join') {
    followUps.push(relayEvent(9000, id, [['p', event.pubkey, 'member']], now))
  }
  const kindRefusal = checkSupportedKind(kind, g, policy)
  if (kindRefusal) return kindRefusal
  const prevRefusal = checkPrevious(event, g, ctx)
  if (prevRefusal) return prevRefusal
  return { ok: true, group: id, moderation, followUps }
}

function checkTiming(event: NostrEvent, ctx: IntakeContext): Refusal | undefined {
  const { policy, now } = ctx
  if (policy.moderationWindow !== undefined && isModerationKind(event.kind)) {
    if (event.created_at < now - policy.moderationWindow)
      return refuse('blocked: moderation action is too old (older than 1 minute ago)')
  }
  if (ctx.lateWindow && event.created_at < now - ctx.lateWindow) return refuse('blocked: event too old')
  if (policy.futureWindow !== undefined && ctx.lateWindow && event.created_at > now + policy.futureWindow)
    return refuse('blocked: event too much in the future')
  return undefined
}

function checkJoin(event: NostrEvent, g: GroupRecord, ctx: IntakeContext): Verdict {
  const { policy, now } = ctx
  const pk = event.pubkey
  const code = event.tags.find((t) => t[0] === 'code')?.[1]
  const status = inviteStatus(g, code, now, policy)
  const validCode = status === 'valid' ? (code as string) : undefined
  const m = policy.messages
  const closedRefusal = !code ? m.closedNoCode : status === 'expired' ? m.expiredCode : m.badCode
  if (policy.closedBeforeMember && g.closed && !validCode) return refuse(closedRefusal)
  if (isMember(g, pk)) return refuse(m.alreadyMember)
  if (policy.rejoin === 'blocked' && g.removed.includes(pk)) return refuse('blocked: you were removed')
  if (policy.rejoin === 'ignore-any-group' && ctx.removedAnywhere(pk))
    return { ok: true, group: g.id, followUps: [] }
  if (g.closed && !validCode) {
    if (policy.closedJoin === 'refuse' || (code && policy.badCodeRefused)) return refuse(closedRefusal)
    if (policy.closedJoin === 'pending') {
      const full = ctx.maxPendingJoins !== undefined && g.pending.length >= ctx.maxPendingJoins
      if (full && !g.pending.includes(pk))
        return refuse("blocked: too many join requests are waiting for this group's admins, try again later")
      return { ok: true, group: g.id, pendingJoin: true, followUps: [] }
    }
    return { ok: true, group: g.id, followUps: [] }
  }
  const p = policy.joinRole ? ['p', pk, policy.joinRole] : ['p', pk]
  const tags = [p]
  // The 9000 names a code only on its last use: one still good for others stays out of public events.
  if (validCode && singleUse(g, validCode)) tags.push(['code', validCode])
  else if (policy.joinCodeTagAlways) tags.push(['code', ''])
  return {
    ok: true,
    group: g.id,
    followUps: [relayEvent(9000, g.id, tags, now)],
    ...(validCode !== undefined && { spendInvite: validCode }),
  }
}

function checkLeave(event: NostrEvent, g: GroupRecord, ctx: IntakeContext): Verdict {
  const { policy, now } = ctx
  const pk = event.pubkey
  if (!isMember(g, pk)) {
    if (policy.leaveNonMember === 'silent') return refuse('', { silent: true })
    return refuse(policy.messages.notAMemberLeave)
  }
  if (policy.lastAdminProtected && hasRole(g, pk, 'admin') && adminsOf(g).length === 1)
    return refuse('Cannot remove last admin', { notice: true })
  if (!policy.leaveEmits9001) return { ok: true, group: g.id, dropSender: true, followUps: [] }
  const tags = [['p', pk]]
  if (policy.selfRemovalTag) tags.push(['self-removal'])
  return { ok: true, group: g.id, followUps: [relayEvent(9001, g.id, tags, now)] }
}

/** The groups_relay NOTICE texts for moderation by a non-admin. */
const GROUPS_RELAY_DENIALS: Record<number, string> = {
  9000: 'User is not authorized to add users to this group',
  9001: 'User is not authorized to remove users from this group',
  9002: 'User cannot edit metadata',
  9009: 'User is not authorized to create invites',
}

function checkModeration(event: NostrEvent, g: GroupRecord, ctx: IntakeContext): Refusal | undefined {
  const { policy } = ctx
  if (event.kind === 9009 && policy.invites === 'rejected')
    return refuse('blocked: invalid moderation action: event kind 9009 is not a supported moderation action')
  const parsed = parseAction(event)
  if (!parsed.ok) return refuse(`error: invalid moderation action: ${parsed.detail}`)
  const action = parsed.action
  const pk = event.pubkey
  const isAdmin = hasRole(g, pk, 'admin')
  const isModerator = !policy.adminOnlyModeration && hasRole(g, pk, 'moderator')
  if (!isAdmin && !isModerator) {
    if (policy.noticeInsteadOfOk) {
      const text = GROUPS_RELAY_DENIALS[event.kind]
      if (text) return refuse(text, { notice: true })
      return refuse('restricted: User is not authorized to delete this event')
    }
    return refuse(policy.messages.insufficientPermissions)
  }
  const limited = policy.moderatorLimits && !isAdmin
  // Each role sends the moderation kinds 39003 grants it (9008 keeps its own text below).
  if (limited && event.kind !== 9008 && !ROLE_GRANTS.moderator?.has(event.kind))
    return refuse(policy.messages.insufficientPermissions)
  switch (action.kind) {
    case 9000: {
      if (limited && action.targets.some((t) => t.roles.length > 0))
        return refuse('restricted: only admins can add or change user roles')
      if (limited && action.targets.some((t) => rolesOf(g, t.pubkey).length > 0))
        return refuse('restricted: only admins can modify users with roles')
      if (
        policy.pyramidPolicies &&
        action.targets.every((t) => isMember(g, t.pubkey) && sameRoles(rolesOf(g, t.pubkey), t.roles))
      )
        return refuse('blocked: all targets are members already')
      if (policy.lastAdminProtected) {
        const admins = adminsOf(g)
        const demoted = action.targets.filter((t) => admins.includes(t.pubkey) && !t.roles.includes('admin'))
        if (demoted.length > 0 && demoted.length >= admins.length)
          return refuse('Notice: Cannot unset last admin role', { notice: true })
      }
      return undefined
    }
    case 9001: {
      if (limited && action.targets.some((t) => rolesOf(g, t).length > 0))
        return refuse('restricted: only admins can remove admins or moderators')
      if (policy.pyramidPolicies && action.targets.every((t) => !isMember(g, t)))
        return refuse('blocked: all targets have left already')
      if (policy.lastAdminProtected) {
        const admins = adminsOf(g)
        if (admins.length > 0 && admins.every((a) => action.targets.includes(a)))
          return refuse('Cannot remove last admin', { notice: true })
      }
      return undefined
    }
    case 9002: {
      if (policy.pyramidPolicies) {
        const has = (n: string) => event.tags.some((t) => t[0] === n)
        if (has('private') && !has('closed')) return refuse('blocked: a private group must also be closed')
      }
      if (policy.subgroups) {
        const problem = checkParenting(event, g, (id) => ctx.group(id))
        if (problem) return refuse(problem)
      }
      return undefined
    }
    case 9005: {
      const targets = action.ids.map((id) => ctx.findEvent(id))
      const inScope = targets.filter(
        (t): t is { pubkey: string; group?: string } =>
          !!t && (policy.deleteScope === 'any' || t.group === g.id),
      )
      if (inScope.length === 0) return refuse('blocked: none of the targets exist in this relay')
      if (limited && inScope.some((t) => hasRole(g, t.pubkey, 'admin')))
        return refuse("blocked: can't delete messages from an admin")
      return undefined
    }
    case 9008:
      if (!isAdmin) return refuse("blocked: can't delete group")
      return undefined
    case 9009: {
      if (policy.pyramidPolicies && !g.closed)
        return refuse('blocked: no need to create invites in open groups')
      const terms = inviteTerms(event.tags, policy)
      if (!terms.ok) return refuse(`error: invalid moderation action: ${terms.detail}`)
      // NIP-40: an event already expired is not accepted.
      if (terms.terms?.expires !== undefined && terms.terms.expires <= ctx.now)
        return refuse("error: invalid moderation action: 'expiration' is in the past")
      return undefined
    }
    default:
      return undefined
  }
}

function sameRoles(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((r) => b.includes(r))
}

function checkSupportedKind(kind: number, g: GroupRecord, policy: ProfilePolicy): Refusal | undefined {
  if (policy.supportedKinds === 'ignored' || g.supportedKinds === undefined) return undefined
  if (policy.supportedKinds === 'exempt-moderation' && kind >= 9000 && kind <= 9022) return undefined
  if (g.supportedKinds.includes(kind)) return undefined
  if (g.supportedKinds.length === 0 && g.livekit)
    return refuse('blocked: this is a live audio/video group only')
  return refuse('blocked: kind not supported by this group')
}

/** Kinds a newcomer sends before reading the group: no minimum number of references. */
const NO_MINIMUM = new Set([9007, 9021, 9022])

function checkPrevious(event: NostrEvent, g: GroupRecord, ctx: IntakeContext): Refusal | undefined {
  const { policy } = ctx
  if (!policy.previous.check) return undefined
  let tags = event.tags.filter((t) => t[0] === 'previous')
  if (policy.previous.firstTagOnly) tags = tags.slice(0, 1)
  const values = tags.flatMap((t) => t.slice(1))
  const ring = ctx.ring(g.id)
  // Each value names one event; prefixes of the same event count once, the sender's own not at all.
  const named = new Set<string>()
  for (const v of values) {
    if (!HEX_PREFIX.test(v)) return refuse(`error: invalid value '${v}' in previous tag`)
    const hit = ring.find((e) => e.id.startsWith(v))
    if (!hit) return refuse(policy.messages.previousNotFound(v))
    if (hit.pubkey !== event.pubkey) named.add(hit.id)
  }
  if (ctx.previousMinimum > 0 && !NO_MINIMUM.has(event.kind)) {
    const others = ring.filter((e) => e.pubkey !== event.pubkey).length
    const required = Math.min(ctx.previousMinimum, others)
    const distinct = named.size
    if (distinct < required)
      return refuse(`blocked: at least ${required} previous references are required, got ${distinct}`)
  }
  return undefined
}

/** A template for a relay-made event in group `id`. */
export function relayEvent(kind: number, id: string, tags: string[][], createdAt: number): EventTemplate {
  return { kind, created_at: createdAt, content: '', tags: [['h', id], ...tags] }
}
