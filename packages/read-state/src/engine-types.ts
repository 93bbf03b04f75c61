import type { EventTemplate, Filter, NostrEvent } from 'nostr-tools'
import type { ParentResolver } from './frontier'

/**
 * A received kind 30078 event handed to the engine: the event as it came from a relay (its
 * signature already verified by the caller, decision i) and the caller's decryption of its
 * content with NIP-44 to self, or `null`/`undefined` when decryption failed (then the event is
 * never merged and never counts as a conflict).
 *
 * @example
 * const input: BlobInput = { event, plaintext: await signer.nip44.decrypt(pk, event.content).catch(() => null) }
 */
export interface BlobInput {
  /** The kind 30078 event as received, its signature already verified. */
  readonly event: NostrEvent
  /** Its content decrypted (NIP-44 to self), or null/undefined when that failed. */
  readonly plaintext?: string | null
}

/**
 * Why the engine moved to another slot or identity.
 *
 * @example
 * for (const e of effects) if (e.type === 'rotated' && e.reason === 'conflict') log(e.previousSlotId)
 */
export type RotationReason =
  /** Our coordinate holds another instance's `client_id` (the spec's conflict rule). */
  | 'conflict'
  /** Our coordinate holds a version more than 10 minutes ahead of the clock (decision e). */
  | 'future'
  /** Another installation writes with our `client_id` (clone or backup restore): new `client_id` and slot. */
  | 'clone'
  /** We had never published at our slot and found our newest own blob at another one: it is ours. */
  | 'adopted'
  /** `rotateClientId()` was called. */
  | 'manual'

/**
 * What the engine asks its driver to do. Effects are returned by every input method, in order.
 *
 * @example
 * for (const e of engine.markRead(ctx, ts)) if (e.type === 'wake') timer.set(e.at)
 */
export type Effect =
  /** Fetch every blob of the user within the horizon from the union of read and write relays, then call `loaded()`. */
  | {
      /** Initial fetch. */
      readonly type: 'load'
      /** The filter to fetch with (our blobs of kind 30078 within the horizon). */
      readonly filter: Filter
    }
  /** Keep a live subscription with this filter on the same relays; feed each event to `receive()`. */
  | {
      /** Live subscription. */
      readonly type: 'subscribe'
      /** The filter to keep open. */
      readonly filter: Filter
    }
  /** Read-before-write: fetch our own coordinate from each write relay, then call `ownFetched(ref, blobs)`. */
  | {
      /** Read-before-write. */
      readonly type: 'fetch-own'
      /** Pass it back to `ownFetched`. */
      readonly ref: number
      /** The slot about to be written. */
      readonly slotId: string
      /** The filter for our own coordinate at that slot. */
      readonly filter: Filter
    }
  /**
   * Encrypt `plaintext` to self (NIP-44), sign `{kind, created_at, tags, content}` (see
   * `publishTemplate`), publish it to the write relays, then call `published(ref, {id, ok})`.
   */
  | {
      /** Publish our blob. */
      readonly type: 'publish'
      /** Pass it back to `published`. */
      readonly ref: number
      /** The slot written (also in the `d` tag). */
      readonly slotId: string
      /** The event's kind. */
      readonly kind: 30078
      /** The event's `created_at`, Unix seconds; above every version already at the slot. */
      readonly createdAt: number
      /** The event's tags (`d` and the rest), to sign as they are. */
      readonly tags: string[][]
      /** The blob's JSON, to encrypt to self as the event's content. */
      readonly plaintext: string
      /** The contexts and frontiers that `plaintext` holds, for the driver's own bookkeeping. */
      readonly contexts: Readonly<Record<string, number>>
    }
  /** Sign and publish this NIP-09 request (kind 5, `a` + `k` tags) for our stale duplicates. No answer needed. */
  | {
      /** Delete stale duplicates. */
      readonly type: 'delete'
      /** The slots whose versions are deleted. */
      readonly slotIds: readonly string[]
      /** The unsigned kind 5 request. */
      readonly template: EventTemplate
    }
  /** Call `tick()` at `at` (milliseconds, the engine's clock); `null` cancels. Replaces any earlier wake. */
  | {
      /** Schedule a tick. */
      readonly type: 'wake'
      /** When, in milliseconds on the engine's clock; `null` cancels the timer. */
      readonly at: number | null
    }
  /** The slot (and for `clone`/`manual` the client id) changed. Informational; the new ids are in `persist` too. */
  | {
      /** New slot. */
      readonly type: 'rotated'
      /** Why it changed. */
      readonly reason: RotationReason
      /** The client id now in use (new for `clone` and `manual`). */
      readonly clientId: string
      /** The slot now written to. */
      readonly slotId: string
      /** The slot written to before. */
      readonly previousSlotId: string
    }
  /** These contexts advanced (a local mark or a merged blob); listeners may recompute unread state. */
  | {
      /** Read state advanced. */
      readonly type: 'changed'
      /** The context keys that advanced. */
      readonly contexts: readonly string[]
    }
  /** Save this state (per pubkey) and pass it back as `state` on the next start. */
  | {
      /** Save the state. */
      readonly type: 'persist'
      /** The state to save, a plain JSON value. */
      readonly state: EngineState
    }

/**
 * The engine's persistent state, a plain JSON value.
 *
 * @example
 * await store.setValue(`read-state:v1:${pk}`, effect.state) // a `persist` effect
 */
export interface EngineState {
  /** The state format's version. */
  readonly v: 1
  /** This installation's `client_id`. */
  readonly clientId: string
  /** The slot (the event's `d` tag) this installation publishes to. */
  readonly slotId: string
  /** Everything known: local marks merged with every blob seen. Never lowered. */
  readonly contexts: Readonly<Record<string, number>>
  /** When each context last advanced (engine clock, ms); orders eviction. */
  readonly advancedAt: Readonly<Record<string, number>>
  /** A change is waiting to be published. */
  readonly pending: boolean
  /** The contexts of the newest version at our slot that we published or found there. */
  readonly lastPublished?: {
    /** The slot it was published at. */
    readonly slotId: string
    /** Its `created_at`, Unix seconds. */
    readonly createdAt: number
    /** Its contexts and their frontiers. */
    readonly contexts: Readonly<Record<string, number>>
    /** Event id of that version, when known. */
    readonly id?: string
  }
  /** Ids of events we signed (the newest 64): their echoes are ours, never a clone. */
  readonly publishedIds: readonly string[]
  /** Slots we left (conflict, clock lead, deleted duplicates): never written or adopted again. */
  readonly retiredSlots: readonly string[]
}

/**
 * Options of `new ReadStateEngine`.
 *
 * @example
 * new ReadStateEngine({ pubkey, clock: Date.now, randomId, state: saved, debounceMs: 5000 })
 */
export interface EngineOptions {
  /** The user's pubkey (hex); events by any other author are ignored. */
  pubkey: string
  /** The clock in milliseconds (injected; the engine has none of its own). */
  clock: () => number
  /** Fresh random ids for `client_id` and slot ids (32 lowercase hex recommended, decision a). */
  randomId: () => string
  /** Persisted state from an earlier run; without it a new `client_id` and slot are generated. */
  state?: EngineState
  /** Plaintext budget in bytes (default 32,768, at most 40,960). */
  budget?: number
  /** Fetch horizon in seconds (default 7 days). */
  horizonSeconds?: number
  /** Trailing debounce in ms (default 5,000). */
  debounceMs?: number
  /** Longest wait under continuous activity in ms (default 30,000). */
  maxWaitMs?: number
  /** Parent channel of `thread:`/`msg:` keys (for dominance: eviction and the re-publish trigger). */
  parentOf?: ParentResolver
  /** Received content longer than this is discarded (default 87,472: the largest NIP-44 payload of 65,535 bytes). */
  maxContentLength?: number
  /**
   * Above this many known contexts, `thread:`/`msg:` entries dominated by their channel (inert:
   * no frontier changes) are dropped from local state so it stays bounded (default 10,000).
   */
  maxLocalContexts?: number
}

/**
 * What the engine is doing, for drivers that wait for a flush to finish.
 *
 * @example
 * if (engine.status().inFlight === null) resolveFlush()
 */
export interface EngineStatus {
  /** The initial load has finished (`loaded()` was called). */
  readonly loaded: boolean
  /** A change is waiting to be published. */
  readonly pending: boolean
  /** The step waiting for the driver's answer, if any. */
  readonly inFlight: 'fetch-own' | 'publish' | null
  /** When the engine wants `tick()` next (engine clock, ms), or null. */
  readonly nextWake: number | null
  /** How many versions this engine has published. */
  readonly publishes: number
}
