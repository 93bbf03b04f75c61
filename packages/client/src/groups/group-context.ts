import type { Membership } from '@roost/nip29'
import type { RelayPool } from '../pool'
import type { Signer } from '../signers'
import type { EventStore } from '../store'
import type { ReadStateSource } from './types'

/** What a group needs from its registry: one object shared by every group of the account. */
export interface GroupContext {
  readonly pool: RelayPool
  readonly store: EventStore
  readonly signer: Signer
  readonly me: string
  readonly clock: () => number
  readonly readState?: ReadStateSource
  /** The relay key for this group's relay, once known. */
  relayKey(relay: string): string | undefined
  /** Pins the relay key to the author of the first 39000 seen, when nothing better is known. */
  pinRelayKey(relay: string, pubkey: string): void
  /** True when the relay key is only that pin (nothing vouches for it). */
  relayKeyPinned?(relay: string): boolean
  /** Publish deadline in ms; the pool's default when absent. */
  readonly publishTimeout?: number
  /** Told when the folded membership changes, so the registry can remember it across restarts. */
  onMembership?(key: string, membership: Membership): void
}
