import type { EventTemplate, Filter, NostrEvent } from 'nostr-tools'
import { finalizeEvent, getEventHash } from 'nostr-tools/pure'
import type { Admission, Peer, RelayContext } from './context'
import { addPending, applyEvent, dropMember } from './groups/apply'
import { type Acceptance, checkGroupEvent, groupOf, type IntakeContext } from './groups/intake'
import { spendInvite } from './groups/invites'
import type { GroupRecord } from './groups/record'
import { renderState, STATE_KINDS } from './groups/render'
import { relink } from './groups/subgroups'
import type { RateLimiter } from './rate-limit'
import { isAddressable, isEphemeral } from './store/database'
import { type InsertResult, RING_WINDOW, type StoreTransaction } from './store/store'

/** How an EVENT is answered: one OK, a NOTICE instead (groups_relay), or nothing (groups_relay no-ops). */
export type Reply =
  | { type: 'ok'; ok: boolean; message: string }
  | { type: 'notice'; message: string }
  | { type: 'silent' }

/** A sender as the intake sees it: its NIP-42 keys and its rate limit. */
export interface Sender extends Peer {
  readonly limiter: RateLimiter
}

/** An intake's answer, and the events it stored (or relayed, when ephemeral) in acceptance order. */
export interface IntakeOutcome {
  reply: Reply
  accepted: NostrEvent[]
}

/** The `previous` window: how many recent events of a group a reference may name. */
const RING_SIZE = RING_WINDOW

/** What one unit of work changed: the events to broadcast once committed, the groups to re-sign. */
interface Batch {
  readonly tx: StoreTransaction
  readonly out: NostrEvent[]
  readonly touched: Set<string>
}

const refuse = (message: string): Reply => ({ type: 'ok', ok: false, message })

/**
 * The EVENT pipeline: parse (done by the connection) → rate limit and verify → authorize → store →
 * effects (group transitions, follow-ups, deletions) → regenerate the relay-signed state. Everything
 * from the duplicate check on runs in one store unit per event, under the event's group lock.
 */
export class Intake {
  constructor(private readonly ctx: RelayContext) {}

  /** Runs an EVENT through every rule and, when accepted, ingests it; resolves once committed. */
  async event(sender: Sender, event: NostrEvent): Promise<IntakeOutcome> {
    return (await this.start(sender, event)).outcome
  }

  /**
   * The arrival stage, run as soon as a frame is parsed (ahead of the messages still queued before
   * it): takes a rate-limit token and starts the signature check, so checks of a burst run batched
   * and in parallel while earlier events are still being decided.
   */
  admit(sender: Sender, event: NostrEvent, json?: string): Admission {
    if (!sender.limiter.take()) return { allowed: false, verified: Promise.resolve(false) }
    const verified = this.ctx.check(event, json)
    verified.catch(() => {}) // heard by start(); a sender that left never asks
    return { allowed: true, verified }
  }

  /**
   * The ordered stage: waits for the admission's signature check, runs the checks that need no
   * stored state, then queues the event's store unit. Resolves as soon as the unit is queued (so the
   * connection's next message may be queued behind it); `outcome` settles once the unit committed.
   * `committed` is called with the outcome at the commit itself, before any later read sees it (the
   * place to hand accepted events to live subscriptions).
   */
  async start(
    sender: Sender,
    event: NostrEvent,
    admission: Admission = this.admit(sender, event),
    committed?: (outcome: IntakeOutcome) => void,
  ): Promise<{ outcome: Promise<IntakeOutcome> }> {
    const early = this.precheck(sender, event, admission.allowed, await admission.verified)
    if (early) return { outcome: Promise.resolve({ reply: early, accepted: [] }) }
    const outcome = this.ctx.store.unit(
      groupOf(event),
      async (tx) => {
        // Its turn came after the relay's close stopped taking EVENTs (see Connection.settle).
        if (sender.shuttingDown) return { reply: refuse('error: shutting down'), accepted: [] }
        const batch: Batch = { tx, out: [], touched: new Set() }
        const reply = await this.decide(batch, sender, event)
        return { reply, accepted: batch.out }
      },
      committed,
      event,
    )
    outcome.catch(() => {}) // the caller handles it; not an unhandled rejection meanwhile
    return { outcome }
  }

  /** The checks that need no stored state: rate, signature, AUTH-only kinds, NIP-42 and NIP-70. */
  private precheck(
    sender: Sender,
    event: NostrEvent,
    allowed: boolean,
    verified: boolean,
  ): Reply | undefined {
    const { policy, pubkey } = this.ctx
    if (!allowed) return refuse('rate-limited: slow down, too many events')
    if (!verified) {
      return refuse(
        getEventHash(event) !== event.id
          ? 'invalid: id is computed incorrectly'
          : 'invalid: signature is invalid',
      )
    }
    if (event.kind === 22242) return refuse('invalid: AUTH events are sent with AUTH, not EVENT')
    if (policy.requireAuthForAll && event.pubkey !== pubkey) {
      if (sender.authed.size === 0) return refuse('auth-required: authentication is required for access')
      if (!sender.authed.has(event.pubkey))
        return refuse('restricted: you cannot publish events on behalf of others')
    }
    if (event.tags.some((t) => t[0] === '-' && t.length === 1) && !sender.authed.has(event.pubkey)) {
      if (sender.authed.size === 0)
        return refuse('auth-required: must be published by authenticated event author')
      return refuse('blocked: must be published by event author')
    }
    return undefined
  }

  private async decide(batch: Batch, sender: Sender, event: NostrEvent): Promise<Reply> {
    const { tx } = batch
    // Inside the unit: a ban an earlier unit made is seen here, even before it committed.
    const banned = this.ctx.bans.refusal(event)
    if (banned) return refuse(banned)
    if (await tx.get(event.id)) return { type: 'ok', ok: true, message: 'duplicate: already have this event' }
    if (await tx.wasDeleted(event.id)) return refuse('blocked: this was deleted')
    if (await this.deletedByAuthor(tx, event)) return refuse('blocked: this event was deleted by its author')
    let verdict: Acceptance
    if (event.pubkey === this.ctx.pubkey) {
      verdict = { ok: true, followUps: [], group: groupOf(event), moderation: true }
    } else {
      const v = checkGroupEvent(event, await this.intakeContext(tx, sender, event), this.ctx.nonGroupKinds)
      if (!v.ok) {
        if (v.silent) return { type: 'silent' }
        if (v.notice) return { type: 'notice', message: v.reason }
        return refuse(v.reason)
      }
      verdict = v
    }
    if (event.kind === 5) {
      const refusal = await this.checkDeletion(tx, event)
      if (refusal) return refuse(refusal)
    }
    const outcome = await this.ingest(batch, event, verdict)
    if (outcome === 'stale') return refuse('duplicate: a newer version of this event is stored')
    return { type: 'ok', ok: true, message: verdict.message ?? '' }
  }

  /** The facts the pure rules consult, read inside the unit. */
  private async intakeContext(
    tx: StoreTransaction,
    sender: Sender,
    event: NostrEvent,
  ): Promise<IntakeContext> {
    const groups = await relatedGroups(tx, event)
    const gid = groupOf(event)
    const ring = gid === undefined ? [] : await tx.ring(gid, RING_SIZE)
    const found = new Map<string, { pubkey: string; group?: string }>()
    if (event.kind === 9005) {
      for (const t of event.tags) {
        if (t[0] !== 'e' || !t[1] || found.has(t[1])) continue
        const row = await tx.get(t[1])
        if (row) found.set(t[1], { pubkey: row.pubkey, ...(row.grp !== null && { group: row.grp }) })
      }
    }
    let removed = false
    if (event.kind === 9021 && this.ctx.policy.rejoin === 'ignore-any-group') {
      const rows = await tx.query({ kinds: [9001], '#p': [event.pubkey], limit: 1 }, 1)
      removed = rows.some((r) => !r.json.includes('"self-removal"'))
    }
    return {
      policy: this.ctx.policy,
      relayKey: this.ctx.pubkey,
      now: this.ctx.now(),
      lateWindow: this.ctx.lateWindow,
      previousMinimum: this.ctx.previousMinimum,
      futureWindow: this.ctx.limits.maxFutureSeconds,
      authed: sender.authed,
      group: (id) => groups.get(id),
      ring: () => ring,
      findEvent: (id) => found.get(id),
      removedAnywhere: () => removed,
      maxPendingJoins: this.ctx.limits.maxPendingJoins,
      localChat: this.ctx.localChat,
    }
  }

  private async deletedByAuthor(tx: StoreTransaction, event: NostrEvent): Promise<boolean> {
    if (await tx.deletedByAuthor(event.pubkey, event.id)) return true
    if (isAddressable(event.kind)) {
      const d = event.tags.find((t) => t[0] === 'd')?.[1] ?? ''
      const address = `${event.kind}:${event.pubkey}:${d}`
      const dels = await tx.query({ kinds: [5], authors: [event.pubkey], '#a': [address], limit: 1 }, 1)
      if (dels.some((r) => r.created_at >= event.created_at)) return true
    }
    return false
  }

  /** NIP-09: a deletion may only name the author's own events (and, in pyramid, no old group messages). */
  private async checkDeletion(tx: StoreTransaction, event: NostrEvent): Promise<string | undefined> {
    const max = this.ctx.policy.maxDeleteAge
    if (max === undefined) return undefined
    for (const t of event.tags) {
      if (t[0] !== 'e' || !t[1]) continue
      const row = await tx.get(t[1])
      if (row && row.pubkey === event.pubkey && row.grp !== null && row.created_at < this.ctx.now() - max)
        return "blocked: can't delete very old group message"
    }
    return undefined
  }

  /** Stores an accepted event and applies everything it causes, then re-signs the touched groups' state. */
  private async ingest(batch: Batch, event: NostrEvent, verdict: Acceptance): Promise<InsertResult> {
    const r = await this.store(batch, event)
    if (r !== 'saved') return r
    await this.effects(batch, event, verdict)
    for (const id of batch.touched) await this.regenerate(batch, id)
    return r
  }

  private async store(batch: Batch, event: NostrEvent): Promise<InsertResult> {
    if (isEphemeral(event.kind)) {
      batch.out.push(event)
      await batch.tx.announce(event)
      return 'saved'
    }
    const r = await batch.tx.insert(event)
    if (r === 'saved') batch.out.push(event)
    return r
  }

  /** The group transition, relay-made follow-ups and NIP-09 deletions an accepted event causes. */
  private async effects(batch: Batch, event: NostrEvent, verdict: Acceptance): Promise<void> {
    const { tx, touched } = batch
    const { policy } = this.ctx
    if (event.kind === 5) await this.applyDeletion(tx, event)
    const gid = verdict.group ?? groupOf(event)
    if (gid !== undefined) {
      let g = await tx.group(gid)
      if (verdict.moderation && (g || event.kind === 9007)) {
        const applied = applyEvent(g, event, policy)
        const targets: string[] = []
        for (const id of applied.deleteIds) {
          if (policy.deleteScope === 'any' || (await tx.get(id))?.grp === gid) targets.push(id)
        }
        if (targets.length > 0) {
          await tx.deleteIds(targets)
          await tx.rememberDeleted(targets, this.ctx.now())
        }
        if (applied.deleteGroup) {
          const ids = await tx.deleteGroupEvents(gid, event.id)
          await tx.rememberDeleted(ids, this.ctx.now())
        }
        if (policy.subgroups) {
          const groups = await relatedGroups(tx, event, applied.record)
          for (const other of relink(g, applied.record, (id) => groups.get(id))) {
            await setGroup(tx, other.id, other)
            touched.add(other.id)
          }
        }
        g = applied.record
        touched.add(gid)
      }
      if (g && verdict.pendingJoin) g = addPending(g, event.pubkey)
      if (g && verdict.spendInvite !== undefined) g = spendInvite(g, verdict.spendInvite)
      if (g && verdict.dropSender) {
        g = dropMember(g, event.pubkey)
        touched.add(gid)
      }
      await setGroup(tx, gid, g)
    }
    for (const template of verdict.followUps) {
      const own = await this.signOwn(tx, template)
      if ((await this.store(batch, own)) === 'saved')
        await this.effects(batch, own, { ok: true, followUps: [], moderation: true })
    }
  }

  /**
   * Signs a relay-made event. A 9000/9001 gets a `created_at` after the newest 9000/9001 naming the
   * same user in the group, so "the latest one decides membership" never meets a tie.
   */
  private async signOwn(tx: StoreTransaction, t: EventTemplate): Promise<NostrEvent> {
    let createdAt = t.created_at
    if (t.kind === 9000 || t.kind === 9001) {
      const gid = t.tags.find((x) => x[0] === 'h')?.[1]
      const pks = t.tags.filter((x) => x[0] === 'p').map((x) => x[1] as string)
      if (gid !== undefined && pks.length > 0) {
        const last = (await tx.query({ kinds: [9000, 9001], '#h': [gid], '#p': pks, limit: 1 }, 1))[0]
        if (last && last.created_at >= createdAt) createdAt = last.created_at + 1
      }
    }
    return finalizeEvent({ ...t, created_at: createdAt }, this.ctx.secret)
  }

  private async applyDeletion(tx: StoreTransaction, event: NostrEvent): Promise<void> {
    const ids: string[] = []
    for (const t of event.tags) {
      if (t[0] === 'e' && t[1]) {
        const row = await tx.get(t[1])
        if (row && row.pubkey === event.pubkey && row.kind !== 5) ids.push(row.id)
      } else if (t[0] === 'a' && t[1]) {
        const [kind, pubkey, ...rest] = t[1].split(':')
        if (pubkey !== event.pubkey || !kind || !/^\d+$/.test(kind)) continue
        const filter: Filter = { kinds: [Number(kind)], authors: [pubkey], until: event.created_at }
        if (isAddressable(Number(kind))) filter['#d'] = [rest.join(':')]
        for (const row of await tx.query(filter, this.ctx.limits.maxLimit)) ids.push(row.id)
      }
    }
    if (ids.length > 0) await tx.deleteIds(ids)
  }

  /** Re-signs the group's 390xx events whose content changed; `created_at` strictly increases. */
  private async regenerate(batch: Batch, id: string): Promise<void> {
    const { tx } = batch
    const { policy, pubkey, ownerPubkey } = this.ctx
    const g = await tx.group(id)
    if (!g || g.deleted) return
    for (const kind of STATE_KINDS) {
      const content = renderState(g, kind, policy, { relay: pubkey, owner: ownerPubkey, av: this.ctx.av })
      if (!content) continue
      const stored = await tx.latest(kind, pubkey, id)
      if (kind === 39005 && !stored && g.pins.length === 0) continue
      if (stored) {
        const old = JSON.parse(stored.json) as NostrEvent
        if (old.content === content.content && JSON.stringify(old.tags) === JSON.stringify(content.tags))
          continue
      }
      const createdAt = Math.max(this.ctx.now(), stored ? stored.created_at + 1 : 0)
      const event = finalizeEvent(
        { kind, created_at: createdAt, tags: content.tags, content: content.content },
        this.ctx.secret,
      )
      await this.store(batch, event)
    }
  }

  /**
   * Signs and ingests relay-made events as one unit (the admin API); resolves to what was stored,
   * also handed to `committed` at the commit itself.
   */
  async own(templates: EventTemplate[], committed?: (out: NostrEvent[]) => void): Promise<NostrEvent[]> {
    const gid = templates[0] ? groupOf(templates[0]) : undefined
    return this.ctx.store.unit(
      gid,
      async (tx) => {
        const batch: Batch = { tx, out: [], touched: new Set() }
        for (const t of templates) {
          const e = await this.signOwn(tx, t)
          if ((await this.store(batch, e)) === 'saved')
            await this.effects(batch, e, { ok: true, followUps: [], moderation: true })
        }
        for (const id of batch.touched) await this.regenerate(batch, id)
        return batch.out
      },
      committed,
    )
  }

  /** Re-signs one group's 390xx state where it no longer matches (a setting changed across a restart). */
  async refresh(id: string): Promise<NostrEvent[]> {
    return this.ctx.store.unit(id, async (tx) => {
      const batch: Batch = { tx, out: [], touched: new Set() }
      await this.regenerate(batch, id)
      return batch.out
    })
  }

  /** Stores events signed by others without the intake rules (demo history); resolves to what was stored. */
  async trusted(events: NostrEvent[], committed?: (out: NostrEvent[]) => void): Promise<NostrEvent[]> {
    return this.ctx.store.unit(
      undefined,
      async (tx) => {
        const batch: Batch = { tx, out: [], touched: new Set() }
        for (const e of events) await this.store(batch, e)
        return batch.out
      },
      committed,
    )
  }
}

/**
 * Writes (or removes, when undefined and present) a group record inside the unit; nothing when the
 * record is the one already stored, so a plain message does not rewrite its group.
 */
async function setGroup(tx: StoreTransaction, id: string, g: GroupRecord | undefined): Promise<void> {
  const current = await tx.group(id)
  if (g === current) return
  if (g) await tx.saveGroup(g)
  else if (current) await tx.dropGroup(id)
}

/**
 * The records the rules may consult for this event, read inside the unit: its group, that group's
 * parent and children, and every ancestor of a `parent` it names (and of `after`'s parent).
 */
async function relatedGroups(
  tx: StoreTransaction,
  event: Pick<NostrEvent, 'tags'>,
  after?: GroupRecord,
): Promise<Map<string, GroupRecord | undefined>> {
  const groups = new Map<string, GroupRecord | undefined>()
  const load = async (id: string) => {
    if (!groups.has(id)) groups.set(id, await tx.group(id))
    return groups.get(id)
  }
  const chain = async (start: string | undefined) => {
    const seen = new Set<string>()
    for (let at = start; at !== undefined && !seen.has(at) && seen.size < 1000; ) {
      seen.add(at)
      at = (await load(at))?.parent
    }
  }
  const gid = groupOf(event)
  const g = gid === undefined ? undefined : await load(gid)
  for (const c of [...(g?.children ?? []), ...(after?.children ?? [])]) await load(c)
  await chain(g?.parent)
  await chain(after?.parent)
  for (const t of event.tags) if (t[0] === 'parent' && t[1] !== undefined) await chain(t[1])
  return groups
}
