import { type RelayHandle, startRelay } from '@roost/relay'
import type { NostrEvent } from 'nostr-tools/core'
import { decrypt, encrypt, getConversationKey } from 'nostr-tools/nip44'
import { toBunkerURL } from 'nostr-tools/nip46'
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent } from 'nostr-tools/pure'
import { AbstractRelay } from 'nostr-tools/relay'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import {
  InvalidBunkerUrlError,
  LocalSigner,
  Nip46Signer,
  SignerRefusedError,
  SignerTimeoutError,
  SignerUnavailableError,
} from '../src/signers'

/**
 * A minimal NIP-46 remote signer ("bunker") built from nostr-tools primitives: it listens for
 * kind 24133 requests to its key on the relay, decrypts them (NIP-44), signs with the user's key
 * and answers. `behaviour` lets a test make it refuse, stay silent, or misbehave per method.
 */
async function startBunker(
  relayUrl: string,
  opts: {
    secret?: string
    refuse?: string[]
    silent?: string[]
    tamper?: (event: NostrEvent, user: LocalSigner) => NostrEvent | Promise<NostrEvent>
  } = {},
) {
  const bunkerKey = generateSecretKey()
  const user = LocalSigner.generate()
  const bunkerPubkey = getPublicKey(bunkerKey)
  const relay = new AbstractRelay(relayUrl, {
    verifyEvent,
    websocketImplementation: WebSocket as unknown as typeof globalThis.WebSocket,
  })
  await relay.connect()
  const seen: string[] = []

  async function answer(request: NostrEvent): Promise<void> {
    const key = getConversationKey(bunkerKey, request.pubkey)
    const { id, method, params } = JSON.parse(decrypt(request.content, key)) as {
      id: string
      method: string
      params: string[]
    }
    seen.push(method)
    if (opts.silent?.includes(method)) return
    let result: string | undefined
    let error: string | undefined
    if (opts.refuse?.includes(method)) error = 'user declined'
    else if (method === 'connect') {
      if (params[0] !== bunkerPubkey || (opts.secret && params[1] !== opts.secret)) error = 'invalid secret'
      else result = 'ack'
    } else if (method === 'get_public_key') result = user.publicKey
    else if (method === 'sign_event') {
      const signed = await user.signEvent(JSON.parse(params[0] as string))
      result = JSON.stringify(opts.tamper ? await opts.tamper(signed, user) : signed)
    } else if (method === 'nip44_encrypt')
      result = await user.nip44.encrypt(params[0] as string, params[1] as string)
    else if (method === 'nip44_decrypt')
      result = await user.nip44.decrypt(params[0] as string, params[1] as string)
    else if (method === 'ping') result = 'pong'
    else error = `unsupported method ${method}`
    const reply = finalizeEvent(
      {
        kind: 24133,
        tags: [['p', request.pubkey]],
        content: encrypt(JSON.stringify({ id, result, error }), key),
        created_at: Math.floor(Date.now() / 1000),
      },
      bunkerKey,
    )
    await relay.publish(reply)
  }

  const subscribed = new Promise<void>((resolve) => {
    relay.subscribe([{ kinds: [24133], '#p': [bunkerPubkey], limit: 0 }], {
      onevent: (e) => void answer(e),
      oneose: resolve,
    })
  })
  await subscribed
  const url = toBunkerURL({ pubkey: bunkerPubkey, relays: [relayUrl], secret: opts.secret ?? null })
  return { url, user, bunkerPubkey, seen, close: () => relay.close() }
}

let relay: RelayHandle
const cleanups: Array<() => unknown> = []

beforeAll(async () => {
  // A groups relay refuses events without an `h` tag unless told otherwise; a bunker relay carries
  // NIP-46's kind 24133.
  relay = await startRelay({ port: 0, nonGroupKinds: [24133] })
})

afterAll(async () => {
  for (const c of cleanups.splice(0)) await c()
  await relay.close()
})

async function bunker(opts: Parameters<typeof startBunker>[1] = {}) {
  const b = await startBunker(relay.url, opts)
  cleanups.push(b.close)
  return b
}

async function connect(url: string, timeout = 5_000): Promise<Nip46Signer> {
  const signer = await Nip46Signer.connect(url, { timeout })
  cleanups.push(() => signer.close())
  return signer
}

const template = { kind: 9, tags: [['h', 'general']], content: 'signed far away', created_at: 1_700_000_000 }

describe('Nip46Signer against a bunker over the real relay', () => {
  it('connects with the secret and signs as the user, not as the bunker key', async () => {
    const b = await bunker({ secret: 's3cret' })
    const signer = await connect(b.url)
    expect(await signer.getPublicKey()).toBe(b.user.publicKey)
    expect(b.user.publicKey).not.toBe(b.bunkerPubkey)
    const event = await signer.signEvent(template)
    expect(event).toMatchObject({ ...template, pubkey: b.user.publicKey })
    expect(verifyEvent(JSON.parse(JSON.stringify(event)))).toBe(true)
    expect(b.seen).toEqual(['connect', 'get_public_key', 'sign_event'])
  })

  it('does NIP-44 through the bunker, readable by a local peer', async () => {
    const b = await bunker()
    const signer = await connect(b.url)
    const peer = LocalSigner.generate()
    const payload = await signer.nip44.encrypt(peer.publicKey, 'read state')
    expect(await peer.nip44.decrypt(b.user.publicKey, payload)).toBe('read state')
    const back = await peer.nip44.encrypt(b.user.publicKey, 'reply')
    expect(await signer.nip44.decrypt(peer.publicKey, back)).toBe('reply')
  })

  it('refuses a wrong secret at connect with SignerRefusedError carrying the bunker text', async () => {
    const b = await bunker({ secret: 'right' })
    const wrong = b.url.replace('secret=right', 'secret=wrong')
    const error = await Nip46Signer.connect(wrong, { timeout: 5_000 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SignerRefusedError)
    expect((error as SignerRefusedError).reason).toContain('invalid secret')
  })

  it('surfaces a declined signature as SignerRefusedError', async () => {
    const b = await bunker({ refuse: ['sign_event'] })
    const signer = await connect(b.url)
    const error = await signer.signEvent(template).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SignerRefusedError)
    expect((error as SignerRefusedError).reason).toBe('sign_event: user declined')
  })

  it('times out with SignerTimeoutError when the bunker never answers', async () => {
    const b = await bunker({ silent: ['sign_event'] })
    const signer = await connect(b.url, 400)
    const error = await signer.signEvent(template).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SignerTimeoutError)
    expect((error as SignerTimeoutError).method).toBe('sign_event')
  })

  it('refuses an event the bunker broke, changed, or signed with another key', async () => {
    const broken = await bunker({ tamper: (e) => ({ ...e, content: 'not what you asked' }) })
    await expect((await connect(broken.url)).signEvent(template)).rejects.toThrow(SignerRefusedError)
    const changed = await bunker({
      tamper: (e, user) => user.signEvent({ ...e, content: 'not what you asked' }),
    })
    await expect((await connect(changed.url)).signEvent(template)).rejects.toThrow(/changed the event/)
    const other = LocalSigner.generate()
    const resigned = await bunker({ tamper: (e) => other.signEvent(e) })
    await expect((await connect(resigned.url)).signEvent(template)).rejects.toThrow(/another key/)
  })

  it('fails with SignerUnavailableError when no bunker relay can be reached', async () => {
    const dead = await startRelay({ port: 0 })
    const url = dead.url
    await dead.close()
    const bunkerUrl = toBunkerURL({ pubkey: 'a'.repeat(64), relays: [url], secret: null })
    const error = await Nip46Signer.connect(bunkerUrl, { timeout: 2_000 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SignerUnavailableError)
  })
})

describe('Nip46Signer.parseUrl', () => {
  const pk = 'f'.repeat(64)

  it('reads the key, every relay (encoded or not, deduplicated) and the secret', () => {
    const url = `bunker://${pk}?relay=wss%3A%2F%2Frelay.nsec.app&relay=ws://127.0.0.1:7777&relay=wss%3A%2F%2Frelay.nsec.app&secret=abc`
    expect(Nip46Signer.parseUrl(url)).toEqual({
      pubkey: pk,
      relays: ['wss://relay.nsec.app', 'ws://127.0.0.1:7777'],
      secret: 'abc',
    })
    expect(Nip46Signer.parseUrl(`  bunker://${pk}?relay=wss://r.example.com  `).secret).toBeNull()
  })

  it.each([
    ['another scheme', `nostrconnect://${pk}?relay=wss://r.example.com`, /starts with bunker/],
    ['a short key', `bunker://abc?relay=wss://r.example.com`, /64 lowercase hex/],
    ['an uppercase key', `bunker://${'F'.repeat(64)}?relay=wss://r.example.com`, /64 lowercase hex/],
    ['no relay', `bunker://${pk}?secret=x`, /names no relay/],
    ['an https relay', `bunker://${pk}?relay=https://r.example.com`, /ws:\/\/ or wss:\/\//],
    ['a relay that is not a URL', `bunker://${pk}?relay=nope`, /not a relay URL/],
    ['a NIP-05 name', 'bob@example.com', /starts with bunker/],
  ])('refuses %s with InvalidBunkerUrlError', (_label, url, message) => {
    let thrown: unknown
    try {
      Nip46Signer.parseUrl(url)
    } catch (e) {
      thrown = e
    }
    expect(thrown).toBeInstanceOf(InvalidBunkerUrlError)
    expect((thrown as InvalidBunkerUrlError).code).toBe('invalid-bunker-url')
    expect((thrown as Error).message).toMatch(message)
  })

  it('refuses a bad URL in connect before opening any socket', async () => {
    await expect(Nip46Signer.connect('bunker://nope')).rejects.toBeInstanceOf(InvalidBunkerUrlError)
  })
})
