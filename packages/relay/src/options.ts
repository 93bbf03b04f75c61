import type { NostrEvent } from 'nostr-tools'
import type { RelayLimits } from './limits'
import type { LiveKitConfig } from './livekit/config'
import type { UploadPolicy } from './media/upload-policy'
import type { UploadQuota } from './media/upload-quota'

/**
 * The relay families whose NIP-29 behaviour this relay can reproduce (see `profiles.ts`).
 *
 * @example
 * await startRelay({ profile: 'groups_relay' })
 */
export type RelayProfile = 'roost' | 'strict' | 'relay29' | 'groups_relay' | 'zooid' | 'pyramid'

/**
 * Options of {@link startRelay}. Every field is optional.
 *
 * @example
 * const relay = await startRelay({ port: 0, db: ':memory:', clock: () => 1_700_000_000 })
 */
export interface RelayOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number
  /** Interface to bind; '127.0.0.1' by default. */
  host?: string
  /**
   * Serve HTTPS and WSS on the relay's port (and on Blossom's) with this key and certificate (PEM):
   * `url` is then `wss://`. For trying clients against a local relay (`--tls` makes a self-signed
   * one); a public relay is usually served behind a TLS proxy instead, with `urls: ['wss://…']`.
   */
  tls?: {
    /** The private key, PEM. */
    key: string | Buffer
    /** The certificate chain, PEM. */
    cert: string | Buffer
  }
  /**
   * Where events live: a SQLite file path (opened in WAL mode), ':memory:' (the default), or a
   * `postgres://` URL that several relay processes can share (migrations are applied on start).
   */
  db?: string
  /** The relay's signing key (hex or bytes). Without it the key is generated once and kept in the db. */
  secretKey?: string | Uint8Array
  /**
   * Which rules to follow: 'roost' (the default: spec-correct, open to every client), 'strict' (adds
   * a minimum of 3 `previous` references and gates `#d` reads of private groups), or a relay family to imitate.
   */
  profile?: RelayProfile
  /** Unix seconds; `Math.floor(Date.now() / 1000)` by default. */
  clock?: () => number
  /** Serve this directory over plain HTTP on the same port (index.html fallback, CSP header). */
  staticDir?: string
  /** Seed the demo groups `general`, `design` and `private` (idempotent). */
  demo?: boolean
  /** Late publication: h-tagged events older than `now - lateWindow` are refused. 0 turns it off (import mode). */
  lateWindow?: number
  /** Minimum number of `previous` references (capped at the number of other authors' recent events); 0 in 'roost', 3 in 'strict'. */
  previousMinimum?: number
  /**
   * The relay's public WebSocket URL(s), as clients name it in NIP-42 `relay` tags (behind a proxy:
   * `wss://relay.example.com`). The listen address when none is given. Request headers are never trusted for this.
   */
  urls?: string[]
  /** Overrides of {@link LIMITS} (caps on connections, subscriptions, filters, output, …). */
  limits?: Partial<RelayLimits>
  /** Per-connection EVENT rate limit; 200 events per 10 seconds by default. `events: 0` turns it off. */
  rateLimit?: {
    /** Events accepted per window; 0 turns the limit off. */
    events: number
    /** The window's length, in seconds. */
    perSeconds: number
  }
  /**
   * Opens NIP-29's relay-local group `_` (off by default): the relay creates it (open, named "Relay
   * chat", the `admins` as its admins) and anyone may post in it without joining. Off, every event
   * for `_` (a 9007 creating it included) is refused with `restricted:`.
   */
  localChat?: boolean
  /** Kinds accepted without an `h` tag (NIP-09 deletions, profiles, relay and group lists, app data). */
  nonGroupKinds?: number[]
  /** Seconds between WebSocket pings; a connection that misses one pong is closed. 30 by default. */
  heartbeat?: number
  /** Checks an event's id and signature; nostr-wasm by default, nostr-tools' `verifyEvent` (noble) where wasm does not load. */
  verifyEvent?: (event: NostrEvent) => boolean
  /**
   * A LiveKit server for NIP-29 audio/video. With it the relay answers `/.well-known/nip29/livekit`
   * (204) and mints tokens for members of groups with the `livekit` flag, shows that flag in 39000
   * and publishes 39004 participants from LiveKit's webhooks
   * (`POST /.well-known/nip29/livekit-webhook`). Without it the relay offers no AV.
   */
  livekit?: LiveKitConfig
  /**
   * Largest Blossom upload in bytes (20 MiB by default). Blossom (`PUT /upload`, `GET /<sha256>`)
   * is served on a port of its own ({@link RelayOptions.mediaPort}), never on the relay's: a blob
   * is anyone's upload and must not share an origin with a web client served by the relay.
   */
  maxUpload?: number
  /**
   * The port Blossom listens on (same `host`). By default the relay's port + 1 when that is fixed
   * (a free one if it is taken), a free port when the relay's is 0.
   */
  mediaPort?: number
  /**
   * The public base URL of the Blossom origin, as browsers reach it (`https://media.example`):
   * descriptor URLs, NIP-11 and the web client's CSP name it. Behind a proxy, route that host to
   * {@link RelayOptions.mediaPort}. By default the relay's public host (or the request's) on the media port.
   */
  mediaUrl?: string
  /** Where uploaded blobs are kept: `blobs/` beside a SQLite file by default, a temporary directory for `:memory:`. */
  blobDir?: string
  /**
   * Who may upload to Blossom. `'invited'` by default: members someone else let into a group
   * (an admin's add, an invite code someone else made, the operator's `createGroup`); creating a
   * group or joining an open one is not enough. See {@link UploadPolicy} for the others.
   */
  uploadPolicy?: UploadPolicy
  /**
   * Daily upload quotas (UTC days), per key and for everyone together: uploads and bytes. Past one,
   * `PUT /upload` gets 429 with the reason and `Retry-After`. 0 turns a cap off; kept in memory,
   * per process. Defaults: 100 uploads and 200 MiB per key, 2,000 uploads and 2 GiB in total.
   */
  uploadQuota?: Partial<UploadQuota>
  /**
   * Worker threads that check EVENT signatures (nostr-wasm): one per core by default; 0 checks on
   * the main thread. With a custom `verifyEvent`, checks run on the main thread through it.
   */
  workers?: number
  /** Called with one line per connection event (the CLI's --verbose). */
  log?: (line: string) => void
  /**
   * The operators' public keys (hex or npub): they may call the NIP-86 management API (`POST` to
   * the relay's URL with `Content-Type: application/nostr+json+rpc` and a NIP-98 authorization)
   * and are beyond its bans and allow lists.
   */
  admins?: string[]
  /**
   * Addresses of load balancers in front of the relay (HAProxy, nginx): for connections from them
   * the client's address is taken from `X-Forwarded-For`, for the per-address cap and `blockip`.
   * The header is ignored from anyone else.
   */
  trustedProxies?: string[]
  /** Serves Prometheus metrics at `/metrics` to requests with `Authorization: Bearer <token>`; off without it. */
  metricsToken?: string
  /**
   * For tests of clients: how a REQ answers events of one `created_at`. `'arrival'` (the default,
   * decision 21): the latest arrival first. `'id'`: the lowest id first, the `limit` cut on that
   * order, as NIP-01 relays answer (live delivery stays in arrival order either way).
   */
  tieOrder?: 'arrival' | 'id'
}
