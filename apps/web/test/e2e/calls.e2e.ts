import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { TokenVerifier } from 'livekit-server-sdk'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { joinByCode, screenshot, sidebarGroup, withStack } from './harness'

const API_KEY = 'APIroost'
const API_SECRET = 'a-livekit-secret-for-the-e2e-suite-0123'

/**
 * Where the "LiveKit server" would be: a plain HTTP server that records every request and
 * WebSocket upgrade the client makes and refuses them (no LiveKit server runs here).
 */
let livekit: Server
const seen: string[] = []
let lkUrl = ''
let groupId = ''
let plainId = ''

// The LiveKit stand-in first: the relay's options name its URL.
beforeAll(async () => {
  livekit = createServer((req, res) => {
    seen.push(req.url ?? '')
    res.writeHead(503, { 'Access-Control-Allow-Origin': '*' })
    res.end('no LiveKit here')
  })
  livekit.on('upgrade', (req, socket) => {
    seen.push(req.url ?? '')
    socket.destroy()
  })
  await new Promise<void>((resolve) => livekit.listen(0, '127.0.0.1', resolve))
  lkUrl = `ws://127.0.0.1:${(livekit.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise<void>((resolve) => (livekit ? livekit.close(() => resolve()) : resolve()))
})
const {
  stack,
  people: [bob],
} = withStack({
  relay: () => ({ livekit: { url: lkUrl, apiKey: API_KEY, apiSecret: API_SECRET } }),
  people: ['Bob'],
})
beforeAll(async () => {
  groupId = await stack.relay.createGroup({ name: 'Standup', livekit: true, members: [bob.pubkey ?? ''] })
  plainId = await stack.relay.createGroup({ name: 'Text only', members: [bob.pubkey ?? ''] })
})

describe('calls (NIP-29 AV over LiveKit)', () => {
  test('a group without the livekit flag offers no call', async () => {
    await joinByCode(bob, `${stack.relay.url}'${plainId}`)
    await bob.page.getByRole('heading', { name: /Text only/ }).waitFor()
    await bob.page.getByRole('textbox', { name: /^Message Text only/ }).waitFor()
    expect(await bob.page.getByRole('button', { name: 'Join call' }).count()).toBe(0)
  })

  test('"Join call" gets a NIP-98-authorized token and connects to the configured LiveKit URL', async () => {
    const { page } = bob
    await joinByCode(bob, `${stack.relay.url}'${groupId}`)
    await sidebarGroup(bob, 'Standup').click()
    await page.getByRole('heading', { name: /Standup/ }).waitFor()
    const button = page.getByRole('button', { name: 'Join call' })
    await button.waitFor()
    const tokenResponse = page.waitForResponse((r) =>
      r.url().endsWith(`/.well-known/nip29/livekit/${encodeURIComponent(groupId)}`),
    )
    await button.click()
    const res = await tokenResponse
    expect(res.status()).toBe(200)
    const auth = (await res.request().allHeaders()).authorization ?? ''
    expect(auth).toMatch(/^Nostr /)
    const nip98 = JSON.parse(Buffer.from(auth.slice(6), 'base64').toString('utf8')) as {
      kind: number
      pubkey: string
      tags: string[][]
    }
    expect(nip98.kind).toBe(27235)
    expect(nip98.pubkey).toBe(bob.pubkey)
    expect(nip98.tags).toContainEqual(['method', 'GET'])
    const { token } = (await res.json()) as { token: string }
    const claims = await new TokenVerifier(API_KEY, API_SECRET).verify(token)
    expect(claims.sub).toBe(bob.pubkey)
    expect(claims.video?.room).toBe(groupId)

    // livekit-client (loaded on demand) tries the configured server with that token.
    const status = page.getByTestId('call-status')
    await status.filter({ hasText: /Could not connect to the call at ws:\/\/127\.0\.0\.1/ }).waitFor({
      timeout: 45_000,
    })
    expect(seen.some((u) => u.includes('/rtc') && u.includes(token))).toBe(true)
    await screenshot(page, 'call-attempt')
    expect(bob.errors).toEqual([])
  })
})
