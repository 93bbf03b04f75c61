import { createHash } from 'node:crypto'
import { AccessToken } from 'livekit-server-sdk'
import { generateSecretKey, getPublicKey } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { createLiveKitWebhookHandler } from '../src/livekit/participants'
import { serve } from './media-helpers'

const KEY = 'APIroost'
const SECRET = 'a-livekit-secret-long-enough-for-hs256-signing'
const alice = getPublicKey(generateSecretKey())
const bob = getPublicKey(generateSecretKey())
const PATH = '/.well-known/nip29/livekit-webhook'

/** Signs a webhook body the way a LiveKit server does: a JWT whose sha256 claim is the body's hash. */
async function signedHeader(body: string, secret = SECRET): Promise<string> {
  const at = new AccessToken(KEY, secret)
  at.sha256 = createHash('sha256').update(body).digest('base64')
  return at.toJwt()
}

async function webhookServer() {
  const calls: [string, string[]][] = []
  const base = await serve(
    createLiveKitWebhookHandler({
      apiKey: KEY,
      apiSecret: SECRET,
      onParticipants: (id, pks) => {
        calls.push([id, pks])
      },
    }),
  )
  const post = async (event: string, room: string, identity?: string, secret?: string) => {
    const body = JSON.stringify({
      event,
      id: `EV_${Math.random()}`,
      room: { name: room },
      ...(identity === undefined ? {} : { participant: { identity } }),
    })
    const res = await fetch(base + PATH, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/webhook+json',
        authorization: await signedHeader(body, secret),
      },
    })
    return res.status
  }
  return { base, calls, post }
}

describe('LiveKit webhooks → 39004 participants', () => {
  it('tracks joins and leaves per group and reports each change', async () => {
    const { calls, post } = await webhookServer()
    expect(await post('participant_joined', 'pizza', alice)).toBe(200)
    expect(await post('participant_joined', 'pizza', bob)).toBe(200)
    expect(await post('participant_joined', 'pizza', bob)).toBe(200) // no change, no call
    expect(await post('participant_joined', 'other', bob)).toBe(200)
    expect(await post('participant_left', 'pizza', alice)).toBe(200)
    expect(await post('room_finished', 'other')).toBe(200)
    expect(calls).toEqual([
      ['pizza', [alice]],
      ['pizza', [alice, bob].sort()],
      ['other', [bob]],
      ['pizza', [bob]],
      ['other', []],
    ])
  })

  it('ignores identities that are not pubkeys and events it does not need', async () => {
    const { calls, post } = await webhookServer()
    expect(await post('participant_joined', 'pizza', 'agent-42')).toBe(200)
    expect(await post('track_published', 'pizza', alice)).toBe(200)
    expect(await post('participant_joined', '', alice)).toBe(200)
    expect(calls).toEqual([])
  })

  it('refuses unsigned, forged or tampered webhooks', async () => {
    const { base, calls, post } = await webhookServer()
    expect(await post('participant_joined', 'pizza', alice, 'a-different-secret-of-enough-length')).toBe(401)
    const body = JSON.stringify({
      event: 'participant_joined',
      room: { name: 'pizza' },
      participant: { identity: alice },
    })
    const header = await signedHeader(body)
    const tampered = body.replace('pizza', 'pasta')
    expect(
      (await fetch(base + PATH, { method: 'POST', body: tampered, headers: { authorization: header } }))
        .status,
    ).toBe(401)
    expect((await fetch(base + PATH, { method: 'POST', body })).status).toBe(401)
    expect(
      (
        await fetch(base + PATH, {
          method: 'POST',
          body: 'x'.repeat(70_000),
          headers: { authorization: header },
        })
      ).status,
    ).toBe(413)
    expect((await fetch(base + PATH)).status).toBe(405)
    expect((await fetch(`${base}/elsewhere`, { method: 'POST', body })).headers.get('x-fallthrough')).toBe(
      '1',
    )
    expect(calls).toEqual([])
  })
})
