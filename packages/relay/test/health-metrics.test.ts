/**
 * The operator's HTTP endpoints over real HTTP: `/healthz` for load balancers, and Prometheus
 * metrics at `/metrics` behind a token, counting what clients did over real sockets.
 */
import { createHash } from 'node:crypto'
import { blossomAuthTemplate, encodeAuthHeader } from '@roost/nip29'
import { finalizeEvent } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import type { RelayHandle } from '../src/index'
import { connect, h, live, publish, RawClient, relay, user } from './helpers'
import { call } from './nip86-helpers'

const TOKEN = 'metrics-token-for-tests-0123456789'
const httpOf = (r: RelayHandle) => r.url.replace(/^ws/, 'http')

async function scrape(r: RelayHandle): Promise<Map<string, number>> {
  const res = await fetch(`${httpOf(r)}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
  const out = new Map<string, number>()
  for (const line of (await res.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const at = line.lastIndexOf(' ')
    out.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return out
}

describe('/healthz', () => {
  it('answers 200 while the database answers, also to a blocked address (the balancer)', async () => {
    const op = user()
    const r = await relay({ admins: [op.pk] })
    const res = await fetch(`${httpOf(r)}/healthz`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ok: true })
    expect((await call(r, op, 'blockip', ['127.0.0.1'])).status).toBe(200)
    expect((await fetch(`${httpOf(r)}/healthz`)).status).toBe(200)
    expect((await fetch(httpOf(r))).status).toBe(403)
  })
})

describe('/metrics', () => {
  it('is off without a token, and refuses a missing or wrong token', async () => {
    expect((await fetch(`${httpOf(await relay())}/metrics`)).status).toBe(404)
    const r = await relay({ metricsToken: TOKEN })
    expect((await fetch(`${httpOf(r)}/metrics`)).status).toBe(401)
    const wrong = await fetch(`${httpOf(r)}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } })
    expect(wrong.status).toBe(401)
    expect(await wrong.text()).not.toContain('roost_')
  })

  it('counts connections, subscriptions, events by outcome and reason, commits and uploads', async () => {
    const op = user()
    const r = await relay({ metricsToken: TOKEN, admins: [op.pk] })
    const alice = user()
    const gid = await r.createGroup({ name: 'Counted', members: [alice.pk] })
    const base = await scrape(r)
    expect(base.get('roost_connections')).toBe(0)

    const a = await connect(r.url, alice)
    const b = await RawClient.open(r.url)
    const watching = live(a, [{ kinds: [9], '#h': [gid] }])
    await watching.ready
    const sent = [1, 2, 3].map((i) => alice.sign({ kind: 9, tags: h(gid), content: `m${i}` }))
    for (const e of sent) expect((await publish(a, e)).ok).toBe(true)
    expect((await publish(a, sent[0]!)).message).toMatch(/^duplicate:/)
    const forged = { ...alice.sign({ kind: 9, tags: h(gid) }), sig: 'ab'.repeat(64) }
    expect((await b.publish(forged)).message).toMatch(/^invalid:/)
    const stranger = user()
    expect((await call(r, op, 'banpubkey', [stranger.pk])).status).toBe(200)
    expect((await b.publish(stranger.sign({ kind: 0 }))).message).toMatch(/^blocked:/)

    const png = Buffer.from('89504e470d0a1a0a', 'hex')
    const t = blossomAuthTemplate({
      verb: 'upload',
      sha256: createHash('sha256').update(png).digest('hex'),
      expiration: Math.floor(Date.now() / 1000) + 60,
    })
    const put = (who: typeof alice) =>
      fetch(`${r.mediaUrl}/upload`, {
        method: 'PUT',
        body: new Uint8Array(png),
        headers: { authorization: encodeAuthHeader(finalizeEvent(t, who.sk)), 'content-type': 'image/png' },
      })
    expect((await put(alice)).status).toBe(200)
    expect((await put(user())).status).toBe(403)

    const m = await scrape(r)
    expect(m.get('roost_connections')).toBe(2)
    expect(m.get('roost_subscriptions')).toBe(1)
    const ev = (labels: string) =>
      (m.get(`roost_events_total{${labels}}`) ?? 0) - (base.get(`roost_events_total{${labels}}`) ?? 0)
    expect(ev('result="accepted"')).toBe(3)
    expect(ev('result="duplicate"')).toBe(1)
    expect(ev('result="refused",reason="invalid"')).toBe(1)
    expect(ev('result="refused",reason="blocked"')).toBe(1)
    // Every stored EVENT's commit is in the histogram, in cumulative buckets.
    const count = m.get('roost_commit_seconds_count') ?? 0
    expect(count - (base.get('roost_commit_seconds_count') ?? 0)).toBe(3)
    expect(m.get('roost_commit_seconds_bucket{le="+Inf"}')).toBe(count)
    expect(m.get('roost_commit_seconds_bucket{le="0.001"}')).toBeLessThanOrEqual(
      m.get('roost_commit_seconds_bucket{le="5"}') ?? 0,
    )
    expect(m.get('roost_verify_queue_depth')).toBe(0)
    expect(m.get('roost_uploads_total{status="200"}')).toBe(1)
    expect(m.get('roost_uploads_total{status="403"}')).toBe(1)
  })
})
