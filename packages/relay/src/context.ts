import type { Filter, NostrEvent } from 'nostr-tools'
import type { Bans } from './bans'
import type { RelayLimits } from './limits'
import type { ProfilePolicy } from './profiles'
import type { EventStore } from './store/store'

/**
 * What the connection, query and intake parts share: the settled options, the keys and the store.
 * Built once by the engine; read-only afterwards.
 */
export interface RelayContext {
  readonly policy: ProfilePolicy
  readonly store: EventStore
  /** The key that signs 39000–39005 and relay-made events. */
  readonly secret: Uint8Array
  readonly pubkey: string
  /** NIP-11 `pubkey`: the relay key, or a separate owner key (pyramid, zooid). */
  readonly ownerPubkey: string
  /** The relay offers audio/video (LiveKit configured): 39000 shows the `livekit` flag. */
  readonly av: boolean
  /** Late-publication window in seconds (0 or undefined: off). */
  readonly lateWindow: number | undefined
  readonly previousMinimum: number
  /** How a REQ answers events of one `created_at` (`RelayOptions.tieOrder`, for tests of clients). */
  readonly tieOrder: 'arrival' | 'id'
  /** The limits in force (defaults with the operator's overrides). */
  readonly limits: RelayLimits
  /** The URLs NIP-42 `relay` tags must name (the configured public URLs, else the listen address). */
  publicUrls(): readonly string[]
  /** The relay-local group `_` is open (`RelayOptions.localChat`). */
  readonly localChat: boolean
  /** Kinds accepted without an `h` tag. */
  readonly nonGroupKinds: ReadonlySet<number>
  /** Unix seconds. */
  now(): number
  log(line: string): void
  /** Checks an event's id and signature, here and now (AUTH). */
  verify(event: NostrEvent): boolean
  /**
   * Checks an EVENT's id and signature, batched onto the verification workers; answers come in
   * submission order. `json` is the event's JSON or its `["EVENT", event]` frame, when at hand.
   */
  check(event: NostrEvent, json?: string): Promise<boolean>
  /** The operator's lists (NIP-86): banned keys and events, allow lists, kinds, blocked addresses. */
  readonly bans: Bans
}

/**
 * What an EVENT got at arrival, before the messages ahead of it were handled: its rate-limit token
 * and its signature check, under way (possibly on a worker thread).
 */
export interface Admission {
  /** False when the sender was over its rate limit (then nothing was checked). */
  readonly allowed: boolean
  /** The signature check's answer; rejects when the check itself failed. */
  readonly verified: Promise<boolean>
}

/** How one connection is seen by the query and intake parts. */
export interface Peer {
  /** Pubkeys this connection authenticated with NIP-42. */
  readonly authed: ReadonlySet<string>
  /** `address:port`, for log lines. */
  readonly remote: string
  /** Sends one frame (already JSON). */
  sendRaw(text: string): void
  /** Sends one message. */
  send(message: unknown[]): void
  /** Asks the client to authenticate (`["AUTH", challenge]`). */
  requestAuth(): void
  /** True once the relay is closing and no more of this peer's EVENTs go to storage. */
  readonly shuttingDown?: boolean
}

/** One open subscription. */
export interface Subscription {
  readonly filters: Filter[]
  /** What matching one event against it costs: its filters' values, plus one per filter. */
  readonly cost: number
  /** Live events that matched while stored results were still being sent (sent after them). */
  backlog?: { id: string; frame: string }[]
}
