import type { EventTemplate, NostrEvent, VerifiedEvent } from 'nostr-tools/core'
import type { BunkerPointer, BunkerSigner } from 'nostr-tools/nip46'
import { AbstractSimplePool } from 'nostr-tools/pool'
import { generateSecretKey } from 'nostr-tools/pure'
import { defaultWebSocket } from '../socket/websocket'
import { nobleVerifier, type Verifier } from '../verify'
import { checkSigned, checkTemplate } from './check-signed'
import {
  InvalidBunkerUrlError,
  SignerRefusedError,
  SignerTimeoutError,
  SignerUnavailableError,
} from './errors'
import type { Signer } from './signer'

/** nostr-tools' `BUNKER_REGEX` (kept here so parsing a URL does not load its NIP-46 module). */
const BUNKER_REGEX = /^bunker:\/\/([0-9a-f]{64})\??([?/\w:.=&%-]*)$/

/**
 * Options for {@link Nip46Signer.connect}.
 *
 * @example
 * const opts: Nip46Options = { timeout: 60_000, onauth: (url) => window.open(url), metadata: { name: 'Roost' } }
 */
export interface Nip46Options {
  /**
   * This app's session key towards the bunker. Persist it (with the bunker URL) to reconnect later
   * without asking the user again; a fresh one is generated when absent.
   */
  clientSecretKey?: Uint8Array
  /** Milliseconds to wait for each answer from the bunker (default 30,000; a user may be approving). */
  timeout?: number
  /** WebSocket constructor; defaults to `globalThis.WebSocket`, else the `ws` package (Node, loaded lazily). */
  websocket?: typeof WebSocket
  /** Verifies events the bunker relays deliver and the events it signs (default: noble). */
  verifier?: Verifier
  /** Called with an `auth_url` the bunker wants the user to open (NIP-46 auth challenge). */
  onauth?: (url: string) => void
  /** Sent with `connect` so the bunker can show who is asking. */
  metadata?: {
    /** The app's name. */
    name?: string
    /** The app's web address. */
    url?: string
    /** URL of the app's icon. */
    image?: string
  }
}

/**
 * A remote signer over NIP-46 ("Nostr Connect"): the key stays in a bunker (nsec.app, Amber,
 * nsecBunker, …) and requests travel as kind 24133 events over the bunker's relays, through
 * nostr-tools' `BunkerSigner`. Every request has a timeout ({@link SignerTimeoutError}); a bunker
 * error becomes {@link SignerRefusedError}; signed events are verified and checked against the
 * template.
 *
 * @example
 * const signer = await Nip46Signer.connect('bunker://<hex>?relay=wss://relay.nsec.app&secret=abc', {
 *   onauth: (url) => window.open(url),
 * })
 * const event = await signer.signEvent(template)
 * await signer.close()
 */
export class Nip46Signer implements Signer {
  private cachedPubkey: string | undefined

  private constructor(
    private readonly remote: BunkerSigner,
    private readonly pool: AbstractSimplePool,
    /** The parsed bunker URL (remote signer key, relays, secret). */
    readonly pointer: BunkerPointer,
    /** The session key this app used; persist it to reconnect. */
    readonly clientSecretKey: Uint8Array,
    private readonly timeout: number,
    private readonly verifier: Verifier,
  ) {}

  /**
   * Parses `bunker://<remote-signer-hex>?relay=wss://…&relay=…&secret=…`. Throws
   * {@link InvalidBunkerUrlError} for another scheme, a bad key, or no relay.
   *
   * @example
   * Nip46Signer.parseUrl('bunker://79be…?relay=wss%3A%2F%2Frelay.example.com') // { pubkey, relays: ['wss://relay.example.com'], secret: null }
   */
  static parseUrl(url: string): BunkerPointer {
    if (typeof url !== 'string') throw new InvalidBunkerUrlError('a bunker URL is a string')
    const input = url.trim()
    if (!input.startsWith('bunker://')) throw new InvalidBunkerUrlError('a bunker URL starts with bunker://')
    const match = input.match(BUNKER_REGEX)
    if (!match?.[1]) {
      throw new InvalidBunkerUrlError('the remote signer key in a bunker URL is 64 lowercase hex characters')
    }
    const params = new URLSearchParams(match[2] ?? '')
    const relays: string[] = []
    for (const relay of params.getAll('relay')) {
      let parsed: URL
      try {
        parsed = new URL(relay)
      } catch {
        throw new InvalidBunkerUrlError(`not a relay URL: ${relay}`)
      }
      if (parsed.protocol !== 'wss:' && parsed.protocol !== 'ws:') {
        throw new InvalidBunkerUrlError(`a relay URL is ws:// or wss://: ${relay}`)
      }
      if (!relays.includes(relay)) relays.push(relay)
    }
    if (relays.length === 0) throw new InvalidBunkerUrlError('the bunker URL names no relay')
    return { pubkey: match[1], relays, secret: params.get('secret') }
  }

  /**
   * Parses the URL, opens the bunker's relays and sends `connect` (with the URL's secret). Resolves
   * once the bunker acknowledges.
   *
   * @example
   * const signer = await Nip46Signer.connect(bunkerUrl, { timeout: 60_000 })
   */
  static async connect(bunkerUrl: string, opts: Nip46Options = {}): Promise<Nip46Signer> {
    const pointer = Nip46Signer.parseUrl(bunkerUrl)
    const timeout = opts.timeout ?? 30_000
    const verifier = opts.verifier ?? nobleVerifier
    const websocket = opts.websocket ?? (await defaultWebSocket())
    const pool = new AbstractSimplePool({
      verifyEvent: (event: NostrEvent) => verifier.verify(event),
      websocketImplementation: websocket,
      maxWaitForConnection: timeout,
      enablePing: false,
      enableReconnect: true,
    })
    const clientSecretKey = opts.clientSecretKey ?? generateSecretKey()
    // Loaded here, not with the package: it brings NIP-04's AES, whose tables are built as the
    // module loads, into every page start although only bunker sessions use it.
    const { BunkerSigner } = await import('nostr-tools/nip46')
    const remote = BunkerSigner.fromBunker(clientSecretKey, pointer, {
      pool,
      onauth: opts.onauth ?? (() => {}),
    })
    const signer = new Nip46Signer(remote, pool, pointer, clientSecretKey, timeout, verifier)
    try {
      await signer.request('connect', () => remote.connect(opts.metadata))
    } catch (e) {
      await signer.close()
      throw e
    }
    return signer
  }

  private async request<T>(method: string, fn: () => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new SignerTimeoutError(method, this.timeout)), this.timeout)
    })
    try {
      return await Promise.race([fn(), timedOut])
    } catch (e) {
      if (e instanceof SignerTimeoutError) throw e
      // The request is published with Promise.any over the bunker relays: all of them failed.
      if (e instanceof AggregateError) {
        const why = e.errors.map((x) => (x instanceof Error ? x.message : String(x))).join('; ')
        throw new SignerUnavailableError(`${method}: no bunker relay took the request (${why})`)
      }
      // BunkerSigner rejects with the bunker's bare error string, or an Error of its own.
      const text = e instanceof Error ? e.message : typeof e === 'string' ? e : JSON.stringify(e)
      throw new SignerRefusedError(`${method}: ${text}`)
    } finally {
      clearTimeout(timer)
    }
  }

  /** The user's public key, as the bunker reports it (asked once, then cached). */
  async getPublicKey(): Promise<string> {
    if (this.cachedPubkey) return this.cachedPubkey
    const pubkey = await this.request('get_public_key', () => this.remote.getPublicKey())
    if (typeof pubkey !== 'string' || !/^[0-9a-f]{64}$/.test(pubkey)) {
      throw new SignerRefusedError(`get_public_key returned an invalid key: ${String(pubkey).slice(0, 80)}`)
    }
    this.cachedPubkey = pubkey
    return pubkey
  }

  async signEvent(template: EventTemplate): Promise<VerifiedEvent> {
    const copy = checkTemplate(template)
    const pubkey = await this.getPublicKey()
    const signed = await this.request('sign_event', () => this.remote.signEvent(copy))
    return checkSigned(signed, template, pubkey, this.verifier)
  }

  readonly nip44 = {
    /** Encrypts `plaintext` to `pubkey`: a NIP-44 v2 payload (base64). */
    encrypt: (pubkey: string, plaintext: string): Promise<string> =>
      this.request('nip44_encrypt', () => this.remote.nip44Encrypt(pubkey, plaintext)),
    /** Decrypts a NIP-44 v2 payload `pubkey` sent. */
    decrypt: (pubkey: string, ciphertext: string): Promise<string> =>
      this.request('nip44_decrypt', () => this.remote.nip44Decrypt(pubkey, ciphertext)),
  }

  /** Closes the subscription and the bunker relay connections. The signer is unusable afterwards. */
  async close(): Promise<void> {
    await this.remote.close()
    this.pool.destroy()
  }
}
