import { TokenVerifier } from 'livekit-server-sdk'
import { afterEach, describe, expect, it } from 'vitest'
import { CallTokenError, type Group, type GroupSnapshot } from '../src'
import { groupCode, Harness, until as untilWithin } from './helpers'

const h = new Harness()
const PATIENCE = 15_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)
const client = () => h.roost({ pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })
afterEach(() => h.close())

const LIVEKIT = {
  url: 'wss://livekit.example',
  apiKey: 'APIroost',
  apiSecret: 'a-livekit-secret-for-tests-0123456789',
}

async function refusal(p: Promise<unknown>): Promise<CallTokenError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(CallTokenError)
  return err as CallTokenError
}

describe('Group.callToken (NIP-29 AV over NIP-98)', () => {
  it('a member gets a LiveKit token for the group room under their own key', async () => {
    const relay = await h.relay({ livekit: LIVEKIT })
    const alice = client()
    const id = await relay.createGroup({ name: 'Call', livekit: true, members: [alice.signer.publicKey] })
    const g = await alice.groups.join(groupCode(relay, id))
    await until(g, (s) => s.membership.status === 'member' && s.metadata?.livekit === true)
    const { url, token } = await g.callToken()
    expect(url).toBe(LIVEKIT.url)
    const claims = await new TokenVerifier(LIVEKIT.apiKey, LIVEKIT.apiSecret).verify(token)
    expect(claims.sub).toBe(alice.signer.publicKey)
    expect(claims.video?.room).toBe(id)
    expect(claims.exp).toBeGreaterThan(Math.floor(Date.now() / 1000))
    // Each call signs a fresh authorization, so asking again works.
    await expect(g.callToken()).resolves.toMatchObject({ url: LIVEKIT.url })
  })

  it('a non-member is refused with the relay text; a relay without AV says unavailable', async () => {
    const av = await h.relay({ livekit: LIVEKIT })
    const plain = await h.relay()
    const bob = client()
    const closed = await av.createGroup({ name: 'Closed', livekit: true, closed: true })
    const g = await bob.groups.join(groupCode(av, closed))
    await until(g, (s) => s.membership.status !== 'pending' || s.metadata !== undefined)
    const refused = await refusal(g.callToken())
    expect(refused.reason).toBe('refused')
    expect(refused.status).toBe(403)
    expect(refused.relayMessage).toMatch(/^restricted: /)

    const id = await plain.createGroup({ name: 'No AV', livekit: true, members: [bob.signer.publicKey] })
    const p = await bob.groups.join(groupCode(plain, id))
    await until(p, (s) => s.membership.status === 'member')
    expect(p.snapshot().metadata?.livekit).toBe(false)
    const none = await refusal(p.callToken())
    expect(none.reason).toBe('unavailable')
    expect(none.status).toBe(404)
  })

  it('reports a relay it cannot reach and an answer that is not a token', async () => {
    const relay = await h.relay({ livekit: LIVEKIT })
    const alice = client()
    const id = await relay.createGroup({ livekit: true, members: [alice.signer.publicKey] })
    const g = await alice.groups.join(groupCode(relay, id))
    await until(g, (s) => s.membership.status === 'member')
    const down = await refusal(
      g.callToken({
        fetch: async () => {
          throw new TypeError('fetch failed')
        },
      }),
    )
    expect(down.reason).toBe('unreachable')
    const bad = await refusal(
      g.callToken({ fetch: async () => Response.json({ url: 'javascript:1', token: 'x' }) }),
    )
    expect(bad.reason).toBe('bad-answer')
  })
})
