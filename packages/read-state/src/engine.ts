import {
  type Contexts,
  emptyContexts,
  isValidContextKey,
  isValidTimestamp,
  parseBlob,
  serializeBlob,
} from './blob'
import { checkBudget, fitToBudget, isDominated } from './budget'
import {
  DEFAULT_DEBOUNCE_MS,
  DEFAULT_HORIZON_SECONDS,
  DEFAULT_MAX_CONTENT_LENGTH,
  DEFAULT_MAX_WAIT_MS,
  MAX_CONTEXTS,
  MAX_OWN_CLOCK_LEAD_SECONDS,
  READ_STATE_KIND,
} from './constants'
import { createdAtFor } from './created-at'
import type {
  BlobInput,
  Effect,
  EngineOptions,
  EngineState,
  EngineStatus,
  RotationReason,
} from './engine-types'
import {
  deletionTemplate,
  liveFilter,
  loadFilter,
  ownCoordinateFilter,
  readSlot,
  readStateTags,
} from './envelope'
import { InvalidContextError, InvalidOptionError, InvalidTimestampError } from './errors'
import { effective as effectiveOf, type ParentResolver } from './frontier'
import { sameContexts } from './merge'
import { MergedContexts } from './merged-contexts'
import { PublishSchedule } from './publish-schedule'

const MAX_REMEMBERED_IDS = 64
const MAX_RETIRED_SLOTS = 256

/** The newest version seen at one slot (any client id). */
interface Version {
  id: string
  createdAt: number
  /** `undefined` when the content could not be decrypted or validated. */
  clientId: string | undefined
  contexts: Contexts | undefined
}

interface Cycle {
  ref: number
  phase: 'fetch-own' | 'publish'
  slotId: string
  /** `changeSeq` when the cycle started: later changes keep the engine pending. */
  seq: number
  createdAt?: number
  contexts?: Record<string, number>
}

interface Parsed {
  input: BlobInput
  slotId: string
  clientId: string
  contexts: Contexts
}

/**
 * NIP-RS sync as a deterministic sans-I/O state machine. Every input method returns the
 * {@link Effect}s its driver must carry out (fetch, publish, delete, wake, persist, …); the engine
 * never touches a socket, a timer, a clock or randomness of its own (both are injected).
 *
 * It owns: merging (never lowering a value), own-blob identification among duplicates (decision d)
 * and their NIP-09 deletion, slot-conflict detection and rotation, clone detection and client-id
 * rotation, the clock-skew rule (decision e), read-before-write before every publish, the live
 * re-publish trigger and its suppression evaluated after eviction, the debounce (decision g) and
 * the budget (decision h).
 *
 * @example
 * const engine = new ReadStateEngine({ pubkey, clock: Date.now, randomId: () => bytesToHex(randomBytes(16)) })
 * run(engine.start())                       // load + subscribe
 * run(engine.markRead(groupKey, msg.created_at)) // → changed, persist, wake in 5 s
 * // on wake: run(engine.tick()) → fetch-own; then run(engine.ownFetched(ref, blobs)) → publish; …
 */
export class ReadStateEngine {
  /** The user's public key (hex) this engine keeps read state for. */
  readonly pubkey: string
  private readonly clock: () => number
  private readonly randomId: () => string
  private readonly budget: number
  private readonly horizonSeconds: number
  private readonly maxContentLength: number
  private parentOf: ParentResolver | undefined

  private _clientId: string
  private _slotId: string
  /** Every context's highest value (local marks and every blob), see `merged-contexts.ts`. */
  private readonly state: MergedContexts
  /** When the next publish is due, see `publish-schedule.ts`. */
  private readonly schedule: PublishSchedule
  private lastPublished: EngineState['lastPublished']
  private publishedIds: string[]
  private publishedIdSet: Set<string>
  private retired: Set<string>

  private readonly versions = new Map<string, Version>()
  private readonly slotMaxCreatedAt = new Map<string, number>()
  private loadedOnce = false
  private cycle: Cycle | undefined
  private nextRef = 1
  private flushRequested = false
  private emittedWake: number | null = null
  private persistDirty = false
  private publishCount = 0
  private effects: Effect[] = []
  /** Stale duplicates of our blob, deleted once our blob carries what they held. */
  private readonly toDelete = new Set<string>()

  constructor(options: EngineOptions) {
    if (!/^[0-9a-f]{64}$/.test(options.pubkey))
      throw new InvalidOptionError('pubkey', 'must be 64 lowercase hex')
    this.pubkey = options.pubkey
    this.clock = options.clock
    this.randomId = options.randomId
    this.budget = checkBudget(options.budget)
    this.horizonSeconds = options.horizonSeconds ?? DEFAULT_HORIZON_SECONDS
    const debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS
    const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS
    this.maxContentLength = options.maxContentLength ?? DEFAULT_MAX_CONTENT_LENGTH
    if (debounceMs < 0 || maxWaitMs < debounceMs)
      throw new InvalidOptionError('maxWaitMs', 'debounce must be ≥ 0 and maxWait ≥ debounce')
    this.parentOf = options.parentOf
    const s = options.state
    this._clientId = s?.clientId ?? this.randomId()
    this._slotId = s?.slotId ?? this.randomId()
    this.state = new MergedContexts(this.clock, options.maxLocalContexts ?? MAX_CONTEXTS, s)
    this.lastPublished = s?.lastPublished?.slotId === this._slotId ? s.lastPublished : undefined
    this.publishedIds = [...(s?.publishedIds ?? [])]
    this.publishedIdSet = new Set(this.publishedIds)
    this.retired = new Set(s?.retiredSlots ?? [])
    this.schedule = new PublishSchedule(this.clock, debounceMs, maxWaitMs, s?.pending ?? false)
    if (this.lastPublished) this.slotMaxCreatedAt.set(this._slotId, this.lastPublished.createdAt)
    if (!s) this.persistDirty = true
  }

  /** This installation's `client_id` (inside the encrypted content only). */
  get clientId(): string {
    return this._clientId
  }

  /** This installation's slot id (`d` = `read-state:<slotId>`). */
  get slotId(): string {
    return this._slotId
  }

  /** Everything known (local marks merged with every valid blob). Read-only view. */
  get contexts(): Contexts {
    return this.state.values
  }

  /**
   * The effective frontier of a context (hierarchical rule), `undefined` when unknown (unread).
   *
   * @example
   * engine.effective(`thread:${root}`) // max(thread value, channel value)
   */
  effective(ctx: string, parentOf: ParentResolver | undefined = this.parentOf): number | undefined {
    return effectiveOf(ctx, this.state.values, parentOf)
  }

  /** Replaces the parent resolver (e.g. once the event graph knows more thread roots). */
  setParentResolver(parentOf: ParentResolver | undefined): void {
    this.parentOf = parentOf
  }

  /** `true` for an event id this installation signed (a self-echo, safe to skip decrypting). */
  isOwnEvent(id: string): boolean {
    return this.publishedIdSet.has(id)
  }

  /** What the engine is doing. */
  status(): EngineStatus {
    return {
      loaded: this.loadedOnce,
      pending: this.schedule.pending,
      inFlight: this.cycle?.phase ?? null,
      nextWake: this.emittedWake,
      publishes: this.publishCount,
    }
  }

  /** The state to persist (also delivered through `persist` effects). */
  snapshot(): EngineState {
    return {
      v: 1,
      clientId: this._clientId,
      slotId: this._slotId,
      contexts: { ...this.state.values },
      advancedAt: { ...this.state.advancedAt },
      pending: this.schedule.pending,
      ...(this.lastPublished ? { lastPublished: this.lastPublished } : {}),
      publishedIds: [...this.publishedIds],
      retiredSlots: [...this.retired],
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Inputs

  /**
   * Starts syncing: asks for the initial load and the live subscription. Publishing waits until
   * `loaded()` has been called once.
   *
   * @example
   * engine.start() // [{ type: 'load', filter }, { type: 'subscribe', filter }, { type: 'persist', … }]
   */
  start(): Effect[] {
    const nowSec = this.nowSeconds()
    this.effects.push({ type: 'load', filter: loadFilter(this.pubkey, nowSec, this.horizonSeconds) })
    this.effects.push({ type: 'subscribe', filter: liveFilter(this.pubkey) })
    return this.finish()
  }

  /**
   * Result of the initial load (events from every reachable relay, decrypted by the caller). Call
   * it with what arrived, even `[]` when every relay failed: the engine proceeds with local state.
   */
  loaded(blobs: readonly BlobInput[]): Effect[] {
    this.ingest(blobs)
    this.loadedOnce = true
    return this.finish()
  }

  /** One live event from the subscription (or a re-delivery after a reconnect). */
  receive(blob: BlobInput): Effect[] {
    this.ingest([blob])
    return this.finish()
  }

  /**
   * A local read action: the context is read up to `ts` (the `created_at` of the newest message
   * read, not the wall clock). A value at or below the current one is a no-op. Throws
   * {@link InvalidContextError} / {@link InvalidTimestampError} on bad input.
   *
   * @example
   * engine.markRead("wss://relay.example'general", 1700000100)
   */
  markRead(ctx: string, ts: number): Effect[] {
    if (!isValidContextKey(ctx)) throw new InvalidContextError(ctx)
    if (!isValidTimestamp(ts)) throw new InvalidTimestampError(ts)
    if (this.state.advance(ctx, ts)) this.schedule.markPending()
    return this.finish()
  }

  /** Result of a `fetch-own` effect: every version of our coordinate the write relays returned. */
  ownFetched(ref: number, blobs: readonly BlobInput[]): Effect[] {
    const cycle = this.cycle
    if (!cycle || cycle.ref !== ref || cycle.phase !== 'fetch-own') {
      this.ingest(blobs)
      return this.finish()
    }
    this.ingest(blobs)
    if (cycle.slotId !== this._slotId) {
      // A conflict or clone was found at our coordinate: never publish there, start over on the new slot.
      this.cycle = undefined
      this.startCycle()
      return this.finish()
    }
    const nowSec = this.nowSeconds()
    const maxAtSlot = this.slotMaxCreatedAt.get(this._slotId)
    if (maxAtSlot !== undefined && maxAtSlot > nowSec + MAX_OWN_CLOCK_LEAD_SECONDS) {
      this.rotateSlot('future')
      this.cycle = undefined
      this.startCycle()
      return this.finish()
    }
    const candidate = this.candidate()
    const last = this.lastPublished?.slotId === this._slotId ? this.lastPublished.contexts : emptyContexts()
    if (sameContexts(last, candidate) || this.heldAtOwnSlot(blobs, candidate)) {
      // Suppression, two checks. Spec rule 3: the merged result (after eviction) is identical to
      // what this installation last published (never published: `{}`), e.g. a change that was
      // pending when the app stopped but had already gone out. And ours: it is identical to our
      // blob as a write relay returned it just now, which also covers a version published by an
      // earlier run whose record was lost. They differ when a relay lost (or, after setRelays,
      // never had) the blob we last published: rule 3 still suppresses, so that relay gets it
      // with the next change rather than with a write that changes nothing semantically.
      this.cycle = undefined
      if (this.schedule.changeSeq === cycle.seq) this.schedule.clearPending()
      this.flushRequested = false
      if (this.toDelete.size > 0) this.emitDeletes()
      return this.finish()
    }
    cycle.phase = 'publish'
    cycle.createdAt = createdAtFor(nowSec, maxAtSlot === undefined ? [] : [maxAtSlot])
    cycle.contexts = candidate
    this.publishCount++
    this.effects.push({
      type: 'publish',
      ref,
      slotId: this._slotId,
      kind: READ_STATE_KIND,
      createdAt: cycle.createdAt,
      tags: readStateTags(this._slotId),
      plaintext: serializeBlob({ clientId: this._clientId, contexts: candidate }),
      contexts: candidate,
    })
    return this.finish()
  }

  /**
   * Result of a `publish` effect: `id` of the signed event (when it was signed) and whether at
   * least one relay accepted it. A failure keeps the change pending and retries after a growing
   * delay (never a tight loop).
   */
  published(ref: number, result: { id?: string; ok: boolean }): Effect[] {
    const cycle = this.cycle
    if (result.id) this.rememberId(result.id)
    if (!cycle || cycle.ref !== ref || cycle.phase !== 'publish') return this.finish()
    this.cycle = undefined
    if (cycle.createdAt !== undefined) {
      const prev = this.slotMaxCreatedAt.get(cycle.slotId) ?? -1
      if (cycle.createdAt > prev) this.slotMaxCreatedAt.set(cycle.slotId, cycle.createdAt)
    }
    if (result.ok && cycle.slotId === this._slotId && cycle.contexts && cycle.createdAt !== undefined) {
      this.lastPublished = {
        slotId: cycle.slotId,
        createdAt: cycle.createdAt,
        contexts: cycle.contexts,
        ...(result.id ? { id: result.id } : {}),
      }
      if (result.id) {
        this.noteVersion(cycle.slotId, {
          id: result.id,
          createdAt: cycle.createdAt,
          clientId: this._clientId,
          contexts: cycle.contexts,
        })
      }
      this.schedule.succeeded(this.schedule.changeSeq !== cycle.seq)
      this.persistDirty = true
      if (this.toDelete.size > 0) this.emitDeletes()
    } else if (!result.ok) {
      this.schedule.failed()
      this.flushRequested = false
    }
    if (this.flushRequested && this.schedule.pending) this.startCycle()
    else this.flushRequested = false
    return this.finish()
  }

  /** The timer asked for by the last `wake` effect fired (calling it early is harmless). */
  tick(): Effect[] {
    this.emittedWake = null
    return this.finish()
  }

  /**
   * Publish now if anything is pending (app close, page hide, dispose), skipping the debounce.
   * A cycle already in flight finishes first, then the next one starts immediately.
   */
  flush(): Effect[] {
    if (this.schedule.pending) {
      if (this.cycle) this.flushRequested = true
      else if (this.loadedOnce) this.startCycle()
      else this.flushRequested = true
    }
    return this.finish()
  }

  /**
   * Rotates `client_id` and slot (the spec's optional Client-ID Rotation). The old blob is
   * orphaned and still merged until it ages out.
   */
  rotateClientId(): Effect[] {
    this.rotateIdentity('manual')
    return this.finish()
  }

  // ---------------------------------------------------------------------------------------------
  // Internals

  private nowSeconds(): number {
    return Math.floor(this.clock() / 1000)
  }

  private ingest(blobs: readonly BlobInput[]): void {
    const foreign: Parsed[] = []
    const own: Parsed[] = []
    for (const input of blobs) {
      const slot = readSlot(input.event, { pubkey: this.pubkey, maxContentLength: this.maxContentLength })
      if (!slot.ok) continue
      const { id, created_at } = input.event
      const prevMax = this.slotMaxCreatedAt.get(slot.slotId)
      if (prevMax === undefined || created_at > prevMax) this.slotMaxCreatedAt.set(slot.slotId, created_at)
      if (typeof input.plaintext !== 'string') {
        this.noteVersion(slot.slotId, { id, createdAt: created_at, clientId: undefined, contexts: undefined })
        continue
      }
      const parsed = parseBlob(input.plaintext)
      if (!parsed.ok) {
        this.noteVersion(slot.slotId, { id, createdAt: created_at, clientId: undefined, contexts: undefined })
        continue
      }
      const { clientId, contexts } = parsed.blob
      this.noteVersion(slot.slotId, { id, createdAt: created_at, clientId, contexts })
      const entry = { input, slotId: slot.slotId, clientId, contexts }
      if (clientId === this._clientId) own.push(entry)
      else foreign.push(entry)
    }
    const triggerKeys: Contexts[] = []
    for (const f of foreign) {
      if (f.slotId === this._slotId && !this.retired.has(f.slotId)) this.rotateSlot('conflict')
      this.state.mergeIn(f.contexts)
      triggerKeys.push(f.contexts)
    }
    own.sort((a, b) => a.input.event.created_at - b.input.event.created_at)
    for (const o of own) {
      if (o.clientId !== this._clientId) {
        // our identity rotated during this batch: now another instance's blob
        this.state.mergeIn(o.contexts)
        triggerKeys.push(o.contexts)
        continue
      }
      const { id, created_at } = o.input.event
      if (
        o.slotId === this._slotId &&
        !this.publishedIdSet.has(id) &&
        this.lastPublished?.slotId === this._slotId &&
        this.lastPublished.id !== undefined &&
        this.publishedIdSet.has(this.lastPublished.id) &&
        created_at > this.lastPublished.createdAt &&
        this.state.hasValueAbove(o.contexts)
      ) {
        // Another installation writes our coordinate with our client_id: a clone.
        this.rotateIdentity('clone')
        this.state.mergeIn(o.contexts)
        triggerKeys.push(o.contexts)
        continue
      }
      this.state.mergeIn(o.contexts)
      // a duplicate at another slot is merged "as if from another instance": what it holds must
      // reach our own blob before that duplicate is deleted
      if (o.slotId !== this._slotId && !this.retired.has(o.slotId)) triggerKeys.push(o.contexts)
      if (
        o.slotId === this._slotId &&
        (!this.lastPublished ||
          created_at > this.lastPublished.createdAt ||
          (created_at === this.lastPublished.createdAt && this.publishedIdSet.has(id)))
      ) {
        if (!this.lastPublished || created_at > this.lastPublished.createdAt)
          this.lastPublished = { slotId: this._slotId, createdAt: created_at, contexts: o.contexts, id }
        this.persistDirty = true
      }
    }
    if (own.length > 0) this.reconcileOwnSlots()
    if (triggerKeys.length > 0 && this.shouldRepublish(triggerKeys)) this.schedule.markPending()
    // stale duplicates are deleted once our blob carries their contexts (now, or after the next publish)
    if (this.toDelete.size > 0 && !this.schedule.pending) this.emitDeletes()
  }

  private emitDeletes(): void {
    const slots = [...this.toDelete]
    this.toDelete.clear()
    let createdAt = this.nowSeconds()
    for (const slot of slots) createdAt = Math.max(createdAt, this.slotMaxCreatedAt.get(slot) ?? 0)
    this.effects.push({
      type: 'delete',
      slotIds: slots,
      template: deletionTemplate(this.pubkey, slots, createdAt),
    })
  }

  /** Decision d: among blobs with our client_id the highest created_at (then lowest id) is own. */
  private reconcileOwnSlots(): void {
    const own: [string, Version][] = []
    for (const [slot, v] of this.versions) {
      if (v.clientId === this._clientId && !this.retired.has(slot)) own.push([slot, v])
    }
    if (own.length === 0) return
    own.sort(([, a], [, b]) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    const [winnerSlot, winner] = own[0]!
    if (winnerSlot !== this._slotId) {
      const usedHere = this.lastPublished?.slotId === this._slotId
      if (usedHere) {
        this.rotateIdentity('clone')
        return
      }
      const previous = this._slotId
      this._slotId = winnerSlot
      this.lastPublished = {
        slotId: winnerSlot,
        createdAt: winner.createdAt,
        contexts: winner.contexts ?? {},
        id: winner.id,
      }
      this.persistDirty = true
      this.effects.push({
        type: 'rotated',
        reason: 'adopted',
        clientId: this._clientId,
        slotId: winnerSlot,
        previousSlotId: previous,
      })
    }
    for (const [slot] of own) {
      if (slot === this._slotId) continue
      this.retire(slot)
      this.toDelete.add(slot)
    }
  }

  /**
   * The live trigger (spec rules 2–3), evaluated after eviction: an incoming entry triggers a
   * re-publish only if it survives `fitToBudget`, is not dominated by its channel, and is newer
   * than (or absent from) our last-published blob.
   */
  private shouldRepublish(incoming: Contexts[]): boolean {
    const last = this.lastPublished?.slotId === this._slotId ? this.lastPublished.contexts : undefined
    const candidate = this.candidate()
    for (const map of incoming) {
      for (const key of Object.keys(map)) {
        const value = map[key]!
        if (candidate[key] === undefined) continue
        if (last && last[key] !== undefined && value <= last[key]!) continue
        if (isDominated(key, this.state.values, this.parentOf)) continue
        return true
      }
    }
    return false
  }

  /** `true` when a version of our blob at our slot in `blobs` holds exactly `contexts`. */
  private heldAtOwnSlot(blobs: readonly BlobInput[], contexts: Contexts): boolean {
    for (const input of blobs) {
      const slot = readSlot(input.event, { pubkey: this.pubkey, maxContentLength: this.maxContentLength })
      if (!slot.ok || slot.slotId !== this._slotId || typeof input.plaintext !== 'string') continue
      const parsed = parseBlob(input.plaintext)
      if (
        parsed.ok &&
        parsed.blob.clientId === this._clientId &&
        sameContexts(parsed.blob.contexts, contexts)
      )
        return true
    }
    return false
  }

  private candidate(): Record<string, number> {
    return fitToBudget(this.state.values, {
      clientId: this._clientId,
      budget: this.budget,
      parentOf: this.parentOf,
      advancedAt: this.state.advancedAt,
      nowSeconds: this.nowSeconds(),
      horizonSeconds: this.horizonSeconds,
    }).contexts
  }

  private noteVersion(slot: string, v: Version): void {
    const cur = this.versions.get(slot)
    if (!cur || v.createdAt > cur.createdAt || (v.createdAt === cur.createdAt && v.id < cur.id)) {
      this.versions.set(slot, v)
    }
  }

  private retire(slot: string): void {
    this.retired.add(slot)
    if (this.retired.size > MAX_RETIRED_SLOTS) {
      const first = this.retired.values().next().value
      if (first !== undefined) this.retired.delete(first)
    }
    this.persistDirty = true
  }

  private rotateSlot(reason: RotationReason): void {
    const previous = this._slotId
    this.retire(previous)
    let next = this.randomId()
    while (next === previous || this.retired.has(next)) next = this.randomId()
    this._slotId = next
    this.lastPublished = undefined
    this.effects.push({
      type: 'rotated',
      reason,
      clientId: this._clientId,
      slotId: next,
      previousSlotId: previous,
    })
    // the new slot must carry our state; with nothing known there is nothing to write yet
    if (Object.keys(this.state.values).length > 0) this.schedule.markPending()
  }

  private rotateIdentity(reason: RotationReason): void {
    this._clientId = this.randomId()
    this.rotateSlot(reason)
  }

  private rememberId(id: string): void {
    if (this.publishedIdSet.has(id)) return
    this.publishedIds.push(id)
    this.publishedIdSet.add(id)
    while (this.publishedIds.length > MAX_REMEMBERED_IDS)
      this.publishedIdSet.delete(this.publishedIds.shift()!)
    this.persistDirty = true
  }

  private startCycle(): void {
    const ref = this.nextRef++
    this.cycle = { ref, phase: 'fetch-own', slotId: this._slotId, seq: this.schedule.changeSeq }
    this.flushRequested = false
    this.effects.push({
      type: 'fetch-own',
      ref,
      slotId: this._slotId,
      filter: ownCoordinateFilter(this.pubkey, this._slotId),
    })
  }

  private dueAt(): number | null {
    if (this.cycle || !this.loadedOnce) return null
    return this.schedule.dueAt()
  }

  /** Common tail of every input: start a due cycle, emit wake/changed/persist, return effects. */
  private finish(): Effect[] {
    this.state.prune(this.parentOf)
    if (this.flushRequested && this.schedule.pending && !this.cycle && this.loadedOnce) this.startCycle()
    const due = this.dueAt()
    if (due !== null && due <= this.clock()) this.startCycle()
    const wake = this.dueAt()
    if (wake !== this.emittedWake) {
      this.emittedWake = wake
      this.effects.push({ type: 'wake', at: wake })
    }
    const changed = this.state.drainChanged()
    if (changed.length > 0) this.effects.push({ type: 'changed', contexts: changed })
    if (this.persistDirty || this.state.dirty || this.schedule.dirty) {
      this.persistDirty = false
      this.state.dirty = false
      this.schedule.dirty = false
      // built on first read: a driver that coalesces writes pays for one snapshot per write
      const engine = this
      let state: EngineState | undefined
      this.effects.push({
        type: 'persist',
        get state(): EngineState {
          state ??= engine.snapshot()
          return state
        },
      })
    }
    const out = this.effects
    this.effects = []
    return out
  }
}
