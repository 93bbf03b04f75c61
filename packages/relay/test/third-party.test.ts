/**
 * Third-party NIP-29 libraries chat in an open group on the relay with its defaults, each with its
 * own builders and, where it has one, its own transport: nostr-tools, NDK, applesauce and welshman.
 * None of them adds `previous` to a kind 9 by default.
 */
import * as welshman from '@welshman/util'
import { GroupMessageFactory } from 'applesauce-common/factories'
import { getGroupMetadata } from 'applesauce-common/helpers'
import { RelayPool } from 'applesauce-relay'
import { PrivateKeySigner } from 'applesauce-signers'
import {
  fetchGroupMetadataEvent,
  type GroupReference,
  generateGroupJoinRequestEventTemplate,
  loadGroup,
} from 'nostr-tools/nip29'
import { SimplePool, useWebSocketImplementation } from 'nostr-tools/pool'
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import { lastValueFrom, toArray } from 'rxjs'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { relay } from './helpers'

// NDK and applesauce open sockets with the global WebSocket, which Node 20 does not have.
;(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket
useWebSocketImplementation(WebSocket)

/**
 * NDK, loaded by a computed specifier: its typings declare a global `window.nostr` that clashes with
 * the web client's NIP-07 types in the workspace's one type-check, so only what this test uses is typed.
 */
interface NdkEventLike {
  content: string
  publish(): Promise<Set<unknown>>
}
interface NdkLike {
  connect(timeoutMs: number): Promise<void>
  fetchEvents(filter: Record<string, unknown>): Promise<Set<NdkEventLike>>
  pool: { relays: Map<string, { disconnect(): void }> }
}
interface NdkModule {
  default: new (opts: { explicitRelayUrls: string[]; signer: unknown }) => NdkLike
  NDKEvent: new (ndk: NdkLike, e: { kind: number; content: string; tags: string[][] }) => NdkEventLike
  NDKPrivateKeySigner: new (sk: Uint8Array) => unknown
  NDKRelaySet: { fromRelayUrls(urls: string[], ndk: NdkLike): unknown }
  NDKSimpleGroup: new (
    ndk: NdkLike,
    relays: unknown,
    id: string,
  ) => { getMetadata(): Promise<{ name?: string }> }
}
const NDK_MODULE: string = '@nostr-dev-kit/ndk'

/** A relay with its defaults and an open group with a short history (as a community would have). */
async function openGroup() {
  const r = await relay()
  const id = await r.createGroup({ id: 'general', name: 'General', about: 'Say hello' })
  return { r, id }
}

describe('third-party clients chat in an open group on the default relay', () => {
  it('nostr-tools: previews the group with loadGroup, joins and chats with its templates', async () => {
    const { r, id } = await openGroup()
    const pool = new SimplePool()
    const reference: GroupReference = { id, host: new URL(r.url).host }
    const info = await (
      await fetch(r.url.replace('ws://', 'http://'), { headers: { Accept: 'application/nostr+json' } })
    ).json()
    const group = await loadGroup({
      pool,
      groupReference: reference,
      normalizedRelayURL: r.url,
      relayInformation: info,
    })
    expect(group.metadata.name).toBe('General')
    const meta = await fetchGroupMetadataEvent({
      pool,
      groupReference: reference,
      normalizedRelayURL: r.url,
      relayInformation: info,
    })
    expect(meta.kind).toBe(39000)

    const [alice, bob] = [generateSecretKey(), generateSecretKey()]
    await Promise.all(pool.publish([r.url], finalizeEvent(generateGroupJoinRequestEventTemplate(id), alice)))
    for (const [sk, text] of [
      [alice, 'hello from nostr-tools'],
      [bob, 'hi alice'],
    ] as const) {
      const msg = finalizeEvent(
        { kind: 9, tags: [['h', id]], content: text, created_at: Math.floor(Date.now() / 1000) },
        sk,
      )
      await Promise.all(pool.publish([r.url], msg))
    }
    const chat = await pool.querySync([r.url], { kinds: [9], '#h': [id] })
    expect(chat.map((e) => e.content).sort()).toEqual(['hello from nostr-tools', 'hi alice'])
    pool.close([r.url])
  })

  it('NDK: reads the group with NDKSimpleGroup and chats with NDKEvent', async () => {
    const { r, id } = await openGroup()
    const ndkModule = (await import(NDK_MODULE)) as NdkModule
    const { default: NDK, NDKEvent, NDKPrivateKeySigner, NDKRelaySet, NDKSimpleGroup } = ndkModule
    const users = [new NDKPrivateKeySigner(generateSecretKey()), new NDKPrivateKeySigner(generateSecretKey())]
    const clients = users.map((signer) => new NDK({ explicitRelayUrls: [r.url], signer }))
    await Promise.all(clients.map((ndk) => ndk.connect(5000)))
    const [a, b] = clients as [NdkLike, NdkLike]
    const group = new NDKSimpleGroup(a, NDKRelaySet.fromRelayUrls([r.url], a), id)
    expect((await group.getMetadata()).name).toBe('General')

    for (const [ndk, text] of [
      [a, 'hello from NDK'],
      [b, 'hello back'],
    ] as const) {
      const event = new NDKEvent(ndk, { kind: 9, content: text, tags: [['h', id]] })
      const relays = await event.publish()
      expect(relays.size).toBe(1)
    }
    const got = await b.fetchEvents({ kinds: [9], '#h': [id] })
    expect([...got].map((e) => e.content).sort()).toEqual(['hello back', 'hello from NDK'])
    for (const ndk of clients) for (const relay of ndk.pool.relays.values()) relay.disconnect()
  }, 60_000)

  it('applesauce: builds messages with GroupMessageFactory and talks over applesauce-relay', async () => {
    const { r, id } = await openGroup()
    const pool = new RelayPool()
    const relayConn = pool.relay(r.url)
    const pointer = { id, relay: r.url }
    const meta = await lastValueFrom(relayConn.request({ kinds: [39000], '#d': [id] }).pipe(toArray()))
    const metaEvent = meta.find((m): m is Exclude<typeof m, string> => typeof m !== 'string')
    expect(metaEvent && getGroupMetadata(metaEvent)?.name).toBe('General')

    for (const text of ['hello from applesauce', 'and again']) {
      const signer = new PrivateKeySigner(generateSecretKey())
      const event = await GroupMessageFactory.create(pointer, text).sign(signer)
      const answer = await relayConn.publish(event)
      expect(answer.ok).toBe(true)
    }
    const chat = await lastValueFrom(relayConn.request({ kinds: [9], '#h': [id] }).pipe(toArray()))
    const texts = chat.flatMap((m) => (typeof m === 'string' ? [] : [m.content]))
    expect(texts.sort()).toEqual(['and again', 'hello from applesauce'])
    relayConn.close()
  })

  it('welshman: joins and chats with its room builders and keys, and reads the room with readRoomMeta', async () => {
    const { r, id } = await openGroup()
    // @welshman/util builds and signs; its transport lives in @welshman/net, so frames go over plain ws.
    const ws = new WebSocket(r.url)
    const frames: unknown[][] = []
    ws.on('message', (data) => frames.push(JSON.parse(data.toString()) as unknown[]))
    await new Promise((resolve) => ws.once('open', resolve))
    const until = async (pred: (m: unknown[]) => boolean) => {
      for (let i = 0; i < 1000 && !frames.some(pred); i++) await new Promise((res) => setTimeout(res, 10))
      return frames.find(pred) as unknown[]
    }
    const publish = async (event: { id: string }) => {
      ws.send(JSON.stringify(['EVENT', event]))
      return (await until((m) => m[0] === 'OK' && m[1] === event.id))[2]
    }
    const secrets = [welshman.makeSecret(), welshman.makeSecret()]
    const room = welshman.makeRoomMeta({ h: id })
    for (const [i, secret] of secrets.entries()) {
      const pubkey = welshman.getPubkey(secret)
      const join = welshman.sign(welshman.prep(welshman.makeRoomJoinEvent(room), pubkey), secret)
      expect(await publish(join)).toBe(true)
      const message = welshman.makeEvent(welshman.MESSAGE, { content: `welshman ${i}`, tags: [['h', id]] })
      expect(await publish(welshman.sign(welshman.prep(message, pubkey), secret))).toBe(true)
    }
    ws.send(JSON.stringify(['REQ', 'meta', { kinds: [welshman.ROOM_META], '#d': [id] }]))
    await until((m) => m[0] === 'EOSE' && m[1] === 'meta')
    const metaEvent = frames.find((m) => m[0] === 'EVENT' && m[1] === 'meta')?.[2] as welshman.TrustedEvent
    expect(welshman.readRoomMeta(metaEvent).name).toBe('General')
    ws.send(JSON.stringify(['REQ', 'chat', { kinds: [welshman.MESSAGE], '#h': [id] }]))
    await until((m) => m[0] === 'EOSE' && m[1] === 'chat')
    const texts = frames
      .filter((m) => m[0] === 'EVENT' && m[1] === 'chat')
      .map((m) => (m[2] as { content: string }).content)
    expect(texts.sort()).toEqual(['welshman 0', 'welshman 1'])
    ws.terminate()
  })
})
