import type { GroupState } from './groups/record'

/**
 * Options of {@link RelayHandle.createGroup}.
 *
 * @example
 * await relay.createGroup({ id: 'design', name: 'Design', closed: true, admins: [alice], members: [bob] })
 */
export interface CreateGroupOptions {
  /** The group id; default a random one. */
  id?: string
  /** The group's name. */
  name?: string
  /** A description. */
  about?: string
  /** A picture URL. */
  picture?: string
  /** Only members can read it (default false). */
  private?: boolean
  /** Joining needs an invite code or an admin's approval (default false). */
  closed?: boolean
  /** Only members can write to it (default false). */
  restricted?: boolean
  /** Its metadata is hidden from non-members (default false). */
  hidden?: boolean
  /** Audio/video rooms (NIP-29 `livekit`); advertised while the relay has LiveKit configured. */
  livekit?: boolean
  /** Pubkeys given the `admin` role. */
  admins?: string[]
  /** Pubkeys added as plain members. */
  members?: string[]
  /** The kinds the group accepts; default every kind. */
  supportedKinds?: number[]
}

/**
 * Terms of {@link RelayHandle.createInvite}: how many joins the code admits (default 1;
 * `'unlimited'` for any number) and when it stops admitting anyone (unix seconds).
 *
 * @example
 * await relay.createInvite('design', undefined, { uses: 50, expiresAt: now + 86400 })
 */
export interface InviteOptions {
  /** How many joins the code admits (default 1), or `'unlimited'`. */
  uses?: number | 'unlimited'
  /** When the code stops admitting anyone, Unix seconds; default never. */
  expiresAt?: number
}

/**
 * A running relay.
 *
 * @example
 * const relay = await startRelay()
 * relay.url // 'ws://127.0.0.1:41234'
 * relay.state('general')?.members
 */
export interface RelayHandle {
  /** `ws://127.0.0.1:PORT` (`wss://` with the `tls` option) */
  url: string
  /**
   * The origin Blossom serves uploads from, never the relay's own: `http://127.0.0.1:MEDIA_PORT`,
   * or `mediaUrl` when configured.
   */
  mediaUrl: string
  /** The key that signs 39000–39005 and relay-made 9000/9001 (NIP-11 `self`). */
  pubkey: string
  /** NIP-11 `pubkey`: the same key, or a separate owner key in the pyramid and zooid profiles. */
  ownerPubkey: string
  /**
   * Closes cleanly, in order, and always settles: stops accepting connections, answers every EVENT
   * already received (after its commit; one not stored within a second gets `OK false "error:
   * shutting down"`), ends each subscription with `CLOSED "error: shutting down"`, closes the
   * sockets, then the media server, the worker threads and the database.
   */
  close(): Promise<void>
  /** A snapshot of a group's state, or undefined when there is no such group. */
  state(groupId: string): GroupState | undefined
  /** Creates a group as the relay (relay-signed 9007, 9002, 9000s); resolves to its id. */
  createGroup(opts: CreateGroupOptions): Promise<string>
  /** Adds an invite code (relay-signed 9009), single-use unless `terms` say otherwise; resolves to the code. */
  createInvite(groupId: string, code?: string, terms?: InviteOptions): Promise<string>
  /** What `demo: true` seeded, when it did. */
  demo?: DemoInfo
}

/**
 * The demo seed: group ids, the `design` invite code (good for many newcomers) and the demo users' public keys.
 *
 * @example
 * (await startRelay({ demo: true })).demo?.invite // 'a1b2c3d4e5f6'
 */
export interface DemoInfo {
  /** The demo group ids. */
  groups: string[]
  /** An invite code for the closed `design` group, good for many newcomers. */
  invite: string
  /** The demo users' names and public keys (hex). */
  users: {
    /** The demo user's display name. */
    name: string
    /** Their public key, hex. */
    pubkey: string
  }[]
}
