import { randomBytes } from 'node:crypto'
import { type Filter, type NostrEvent, nip77 } from 'nostr-tools'
import type { Relay } from 'nostr-tools/relay'
import { describe, expect, it } from 'vitest'
import { connect, h, RawClient, relay, signMany, type User, user } from './helpers'

const { Negentropy, NegentropyStorageVector, NegentropySync } = nip77

/** Stores events through a raw socket in one burst and waits for every OK true. */
async function seed(url: string, as: User, events: NostrEvent[]): Promise<void> {
  const raw = await RawClient.open(url)
  await raw.auth(as, url)
  const from = raw.frames.length
  for (const e of events) raw.send(['EVENT', e])
  const ids = new Set(events.map((e) => e.id))
  await raw.next(
    () => raw.frames.slice(from).filter((f) => f[0] === 'OK' && ids.has(f[1] as string)).length === ids.size,
    from,
  )
  const refused = raw.frames.slice(from).filter((f) => f[0] === 'OK' && f[2] !== true)
  expect(refused).toEqual([])
  raw.ws.close()
}

/** Kind 9 messages in group `g`, spread over `span` seconds ending now. */
function messages(as: User, g: string, n: number, span = 5_000) {
  const now = Math.floor(Date.now() / 1000)
  return signMany(
    as,
    Array.from({ length: n }, (_, i) => ({
      kind: 9,
      content: `m${i}`,
      tags: h(g),
      created_at: now - Math.floor((i * span) / Math.max(1, n)),
    })),
  )
}

/** nostr-tools' NIP-77 client over a real socket: what it learns it has and needs. */
function sync(r: Relay, items: { id: string; created_at: number }[], filter: Filter) {
  const storage = new NegentropyStorageVector()
  for (const e of items) storage.insert(e.created_at, e.id)
  storage.seal()
  const have = new Set<string>()
  const need = new Set<string>()
  return new Promise<{ have: Set<string>; need: Set<string>; reason?: string }>((resolve) => {
    const s = new NegentropySync(r, storage, filter, {
      onhave: (id) => have.add(id),
      onneed: (id) => need.add(id),
      onclose: (reason) => resolve({ have, need, ...(reason !== undefined && { reason }) }),
    })
    void s.start()
  })
}

/** Bulk seeding: import mode, no rate limit. */
const BULK = { lateWindow: 0, rateLimit: { events: 1_000_000, perSeconds: 1 } }

const fakeIds = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: randomBytes(32).toString('hex'),
    created_at: 1_700_000_000 + i,
  }))

/** A raw NEG-OPEN with nostr-tools' initiator; resolves with the relay's first answer frame. */
async function negOpen(
  raw: RawClient,
  subId: string,
  filter: Filter,
  items: { id: string; created_at: number }[] = [],
) {
  const storage = new NegentropyStorageVector()
  for (const e of items) storage.insert(e.created_at, e.id)
  storage.seal()
  const neg = new Negentropy(storage)
  const from = raw.frames.length
  raw.send(['NEG-OPEN', subId, filter, neg.initiate()])
  const frame = await raw.next((f) => (f[0] === 'NEG-MSG' || f[0] === 'NEG-ERR') && f[1] === subId, from)
  return { frame, neg }
}

// Bulk seeding: PostgreSQL commits each event on its own, hundreds take seconds under load.
describe('NIP-77 negentropy', { timeout: 60_000 }, () => {
  it('lists 77 in NIP-11 supported_nips, with its caps in limitation', async () => {
    const r = await relay({ limits: { maxNegRecords: 1234, maxNegSessions: 3 } })
    const res = await fetch(r.url.replace('ws://', 'http://'), {
      headers: { Accept: 'application/nostr+json' },
    })
    const info = (await res.json()) as {
      supported_nips: number[]
      negentropy: number
      limitation: Record<string, unknown>
    }
    expect(info.supported_nips).toContain(77)
    expect(info.negentropy).toBe(1)
    expect(info.limitation).toMatchObject({ max_negentropy_records: 1234, max_negentropy_sessions: 3 })
  })

  it("nostr-tools' NegentropySync learns exactly what it has and what it needs, over several rounds", async () => {
    const alice = user()
    const r = await relay({ ...BULK })
    const g = await r.createGroup({ name: 'Sync', members: [alice.pk] })
    const events = await messages(alice, g, 500)
    await seed(r.url, alice, events)
    // The client holds 400 of them plus 40 the relay never had.
    const held = events.slice(0, 400)
    const extra = fakeIds(40)
    const c = await connect(r.url)
    const sent: string[] = []
    const send = c.send.bind(c)
    c.send = (message: string) => {
      sent.push(message)
      return send(message)
    }
    const result = await sync(c, [...held, ...extra], { kinds: [9], '#h': [g] })
    expect(result.reason).toBeUndefined()
    expect([...result.need].sort()).toEqual(
      events
        .slice(400)
        .map((e) => e.id)
        .sort(),
    )
    expect([...result.have].sort()).toEqual(extra.map((e) => e.id).sort())
    expect(sent.filter((m) => m.startsWith('["NEG-MSG"')).length).toBeGreaterThan(0)
  })

  it('answers an empty set, and a set equal to its own, with nothing to exchange', async () => {
    const alice = user()
    const r = await relay({ ...BULK })
    const g = await r.createGroup({ name: 'Same', members: [alice.pk] })
    const events = await messages(alice, g, 300)
    await seed(r.url, alice, events)
    const c = await connect(r.url)
    const same = await sync(c, events, { kinds: [9], '#h': [g] })
    expect([same.have.size, same.need.size]).toEqual([0, 0])
    const empty = await sync(c, [], { kinds: [9], '#h': ['nosuchgroup'] })
    expect([empty.have.size, empty.need.size]).toEqual([0, 0])
  })

  it("a private group's ids never reach a non-member: its events are not in her set, even when she names them", async () => {
    const [alice, bob] = [user(), user()]
    const r = await relay({ ...BULK })
    const pub = await r.createGroup({ name: 'Public', members: [alice.pk, bob.pk] })
    const secret = await r.createGroup({ name: 'Secret', private: true, closed: true, members: [bob.pk] })
    const pubEvents = await messages(alice, pub, 60)
    const hidden = await messages(bob, secret, 80)
    await seed(r.url, alice, pubEvents)
    await seed(r.url, bob, hidden)
    const asAlice = await connect(r.url, alice)
    // A broad filter: every kind 9 she may see.
    const broad = await sync(asAlice, [], { kinds: [9] })
    expect([...broad.need].sort()).toEqual(pubEvents.map((e) => e.id).sort())
    // She guessed the secret ids: the relay answers as for ids it never had.
    const guessed = await sync(asAlice, hidden, { kinds: [9] })
    expect([...guessed.have].sort()).toEqual(hidden.map((e) => e.id).sort())
    // Bob, a member, gets them.
    const asBob = await connect(r.url, bob)
    const member = await sync(asBob, [], { kinds: [9], '#h': [secret] })
    expect([...member.need].sort()).toEqual(hidden.map((e) => e.id).sort())
    // Naming the group is refused as a REQ would be, and no NEG-MSG is sent.
    const raw = await RawClient.open(r.url)
    await raw.auth(alice, r.url)
    const { frame } = await negOpen(raw, 'n1', { '#h': [secret] })
    expect(frame[0]).toBe('NEG-ERR')
    expect(frame[2]).toMatch(/^restricted:/)
  })

  it('a non-member sees the same transcript whether or not a private group holds events', async () => {
    const [alice, bob] = [user(), user()]
    const transcripts: string[][] = []
    const pubEvents = await messages(alice, 'pub', 100)
    const hidden = await messages(bob, 'secret', 150)
    for (const withSecret of [true, false]) {
      const r = await relay({ ...BULK })
      await r.createGroup({ id: 'pub', name: 'Public', members: [alice.pk] })
      if (withSecret) {
        await r.createGroup({ id: 'secret', name: 'Secret', private: true, closed: true, members: [bob.pk] })
        await seed(r.url, bob, hidden)
      }
      await seed(r.url, alice, pubEvents)
      const raw = await RawClient.open(r.url)
      await raw.auth(alice, r.url)
      const { frame, neg } = await open_(raw, hidden.slice(0, 50))
      const lines = [JSON.stringify(frame)]
      let answer = frame
      for (let round = 0; answer[0] === 'NEG-MSG' && round < 20; round++) {
        const next = neg.reconcile(answer[2] as string)
        if (!next) break
        const from = raw.frames.length
        raw.send(['NEG-MSG', 'n1', next])
        answer = await raw.next((f) => f[1] === 'n1', from)
        lines.push(JSON.stringify(answer))
      }
      transcripts.push(lines)
    }
    expect(transcripts[0]).toEqual(transcripts[1])

    function open_(raw: RawClient, items: NostrEvent[]) {
      return negOpen(raw, 'n1', { kinds: [9] }, items)
    }
  })

  it('past maxNegRecords: NEG-ERR blocked with the cap, as strfry answers', async () => {
    const alice = user()
    const r = await relay({ lateWindow: 0, limits: { maxNegRecords: 20 } })
    const g = await r.createGroup({ name: 'Big', members: [alice.pk] })
    await seed(r.url, alice, await messages(alice, g, 21))
    const raw = await RawClient.open(r.url)
    const { frame } = await negOpen(raw, 'n1', { '#h': [g] })
    expect(frame).toEqual([
      'NEG-ERR',
      'n1',
      expect.stringMatching(/^blocked: too many records \(at most 20\)/),
      20,
    ])
    // A filter's limit within the cap is honoured: the newest 20.
    const limited = await negOpen(raw, 'n2', { '#h': [g], kinds: [9], limit: 20 })
    expect(limited.frame[0]).toBe('NEG-MSG')
  })

  it('past maxNegSessions on one connection: NEG-ERR blocked; NEG-CLOSE frees a place', async () => {
    const r = await relay({ limits: { maxNegSessions: 2 } })
    const raw = await RawClient.open(r.url)
    expect((await negOpen(raw, 'a', { kinds: [9] })).frame[0]).toBe('NEG-MSG')
    expect((await negOpen(raw, 'b', { kinds: [9] })).frame[0]).toBe('NEG-MSG')
    // Re-opening an open id replaces that session (NIP-77), it does not count twice.
    expect((await negOpen(raw, 'b', { kinds: [9] })).frame[0]).toBe('NEG-MSG')
    const third = await negOpen(raw, 'c', { kinds: [9] })
    expect(third.frame).toEqual(['NEG-ERR', 'c', 'blocked: too many negentropy sessions (at most 2)'])
    raw.send(['NEG-CLOSE', 'a'])
    expect((await negOpen(raw, 'c', { kinds: [9] })).frame[0]).toBe('NEG-MSG')
  })

  it('malformed messages end the session with NEG-ERR; a NEG-MSG for no session gets closed:', async () => {
    const r = await relay()
    const raw = await RawClient.open(r.url)
    const ask = async (frame: unknown[], subId: string) => {
      const from = raw.frames.length
      raw.send(frame)
      return raw.next((f) => f[1] === subId || f[0] === 'NOTICE', from)
    }
    expect(await ask(['NEG-MSG', 'x', '61'], 'x')).toEqual([
      'NEG-ERR',
      'x',
      'closed: no open negentropy session with this id',
    ])
    expect(await ask(['NEG-OPEN', 'y', { kinds: [9] }, 'zz'], 'y')).toEqual([
      'NEG-ERR',
      'y',
      'invalid: the message is not hex',
    ])
    expect(await ask(['NEG-OPEN', 'y', { kinds: 'x' }, '61'], 'y')).toEqual([
      'NEG-ERR',
      'y',
      'invalid: kinds must be a list of integers from 0 to 65535',
    ])
    // Truncated: a bound with no mode.
    expect((await ask(['NEG-OPEN', 'z', { kinds: [9] }, '6100'], 'z'))[2]).toMatch(
      /^invalid: bad negentropy message/,
    )
    expect(await ask(['NEG-MSG', 'z', '61'], 'z')).toEqual([
      'NEG-ERR',
      'z',
      'closed: no open negentropy session with this id',
    ])
    // A varint of 9 digits, a 33-byte prefix, an unknown mode.
    for (const hex of ['61ffffffffffffffff7f', '610121' + '00'.repeat(33) + '00', '61000007']) {
      const answer = await ask(['NEG-OPEN', 'w', { kinds: [9] }, hex], 'w')
      expect(answer[0]).toBe('NEG-ERR')
      expect(answer[2]).toMatch(/^invalid: bad negentropy message/)
    }
    // A later protocol version: the relay answers with its own version byte alone.
    expect(await ask(['NEG-OPEN', 'v', { kinds: [9] }, '62'], 'v')).toEqual(['NEG-MSG', 'v', '61'])
    // A frame without a subscription id is a NOTICE.
    expect((await ask(['NEG-CLOSE'], '-'))[0]).toBe('NOTICE')
  })

  it('an idle session is ended with NEG-ERR closed:', async () => {
    const r = await relay({ limits: { negIdleSeconds: 1 } })
    const raw = await RawClient.open(r.url)
    expect((await negOpen(raw, 'idle', { kinds: [9] })).frame[0]).toBe('NEG-MSG')
    const end = await raw.next((f) => f[0] === 'NEG-ERR' && f[1] === 'idle')
    expect(end[2]).toBe('closed: no message for 1 s')
  })

  it('a relay that wants AUTH for everything answers NEG-ERR auth-required: and sends a challenge', async () => {
    const r = await relay({ profile: 'zooid' })
    const raw = await RawClient.open(r.url)
    const before = raw.frames.filter((f) => f[0] === 'AUTH').length
    const { frame } = await negOpen(raw, 'n1', { kinds: [9] })
    expect(frame[0]).toBe('NEG-ERR')
    expect(frame[2]).toMatch(/^auth-required:/)
    await raw.next(() => raw.frames.filter((f) => f[0] === 'AUTH').length > before)
  })
})
