import { createHash } from 'node:crypto'
import { imetaOf } from '@roost/nip29'
import { afterEach, describe, expect, it } from 'vitest'
import { blossomServerFor, LocalSigner, UploadError, uploadBlob } from '../src'
import { groupCode, Harness, until } from './helpers'

const h = new Harness()
afterEach(() => h.close())
const PATIENCE = 15_000
const client = () => h.roost({ pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })
const PNG = new Uint8Array(Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex'))
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')

describe('uploadBlob (Blossom BUD-02) and messages with imeta', () => {
  it('a member uploads to the relay, sends the URL with imeta, and another member gets both', async () => {
    const relay = await h.relay()
    const alice = client()
    const bob = client()
    // Uploads are for members someone else let in (the relay's default policy): the operator adds Alice.
    const id = await relay.createGroup({ name: 'Pics', members: [await alice.signer.getPublicKey()] })
    const a = await alice.groups.join(groupCode(relay, id))
    const b = await bob.groups.join(groupCode(relay, id))
    await until(a, (s) => s.membership.status === 'member', PATIENCE)
    await until(b, (s) => s.membership.status === 'member', PATIENCE)

    const progress: number[] = []
    // The relay names its media origin (its own port) in NIP-11.
    const server = blossomServerFor(relay.url, await alice.pool.relayInfo(relay.url))
    expect(server).toBe(relay.mediaUrl)
    const media = await uploadBlob(new Blob([PNG], { type: 'image/png' }), {
      server,
      signer: alice.signer,
      extra: { dim: { width: 1, height: 1 } },
      onProgress: (sent) => progress.push(sent),
    })
    expect(media).toEqual({
      url: `${server}/${sha(PNG)}.png`,
      m: 'image/png',
      x: sha(PNG),
      size: PNG.length,
      dim: { width: 1, height: 1 },
    })
    expect(progress.at(-1)).toBe(PNG.length)
    const served = await fetch(media.url)
    expect(Buffer.from(await served.arrayBuffer())).toEqual(Buffer.from(PNG))

    await a.sendMessage(`look ${media.url}`, { media: [media] })
    await until(b, (s) => s.messages.some((m) => m.content.includes(media.url)), PATIENCE)
    const got = b.snapshot().messages.find((m) => m.content.includes(media.url))!
    expect(imetaOf(got.event)).toEqual([media])
  })

  it('refusals are typed: a key no one let in gets 403 with the server reason; a dead server is status 0', async () => {
    const relay = await h.relay()
    await relay.createGroup({ name: 'Pics' })
    const stranger = LocalSigner.generate()
    const err = await uploadBlob(PNG, { server: relay.mediaUrl, signer: stranger }).catch((e) => e)
    expect(err).toBeInstanceOf(UploadError)
    expect(err).toMatchObject({
      status: 403,
      reason: expect.stringMatching(/^uploads are for members someone else let in/),
    })

    const dead = await uploadBlob(PNG, { server: 'http://127.0.0.1:1', signer: stranger }).catch((e) => e)
    expect(dead).toBeInstanceOf(UploadError)
    expect(dead.status).toBe(0)
  })

  it("blossomServerFor takes the media origin the relay's NIP-11 names, else the relay's HTTP origin", () => {
    expect(blossomServerFor('wss://relay.example/path')).toBe('https://relay.example')
    expect(blossomServerFor('ws://127.0.0.1:7777')).toBe('http://127.0.0.1:7777')
    const named = { roost: { blossom: { url: 'https://media.example/' } } }
    expect(blossomServerFor('wss://relay.example', named)).toBe('https://media.example')
    for (const url of ['javascript:alert(1)', 'ftp://media.example', 'not a url', 42, undefined])
      expect(blossomServerFor('wss://relay.example', { roost: { blossom: { url } } })).toBe(
        'https://relay.example',
      )
    expect(blossomServerFor('wss://relay.example', { roost: 'x' })).toBe('https://relay.example')
  })
})
