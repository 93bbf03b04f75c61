import fc from 'fast-check'
import type { NostrEvent } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { TimelineWindow, timelineOrder } from '../src/index'
import { alice, aliceSecret, bob, bobSecret, carol, carolSecret, hexId, signed } from './helpers'

function fake(n: number, pubkey: string, createdAt = n, kind = 9): NostrEvent {
  return {
    id: hexId(n),
    pubkey,
    created_at: createdAt,
    kind,
    tags: [['h', 'g']],
    content: '',
    sig: '0'.repeat(128),
  }
}

const ids = (w: TimelineWindow) => w.events().map((e) => e.id)

describe('TimelineWindow.previousTag', () => {
  it('is undefined when the window is empty or holds only my events', () => {
    const w = new TimelineWindow()
    expect(w.previousTag(alice)).toBeUndefined()
    w.push(signed(aliceSecret, 9, [['h', 'g']]))
    expect(w.previousTag(alice)).toBeUndefined()
  })

  it('takes 8-hex prefixes of the 3 newest events by others, in one tag', () => {
    const w = new TimelineWindow()
    for (let n = 1; n <= 6; n++) w.push(fake(n, bob))
    expect(w.previousTag(alice)).toEqual([
      'previous',
      hexId(6).slice(0, 8),
      hexId(5).slice(0, 8),
      hexId(4).slice(0, 8),
    ])
  })

  it('excludes my own events', () => {
    const w = new TimelineWindow()
    w.push(fake(1, bob))
    w.push(fake(2, alice))
    w.push(fake(3, alice))
    expect(w.previousTag(alice)).toEqual(['previous', '00000001'])
  })

  it('uses events of any kind, real and signed', () => {
    const w = new TimelineWindow()
    const reaction = signed(bobSecret, 7, [['h', 'g']], { content: '+', createdAt: 5 })
    const put = signed(carolSecret, 9000, [['h', 'g']], { createdAt: 6 })
    w.push(reaction)
    w.push(put)
    expect(w.previousTag(alice)).toEqual(['previous', put.id.slice(0, 8), reaction.id.slice(0, 8)])
  })

  it('keeps prefixes distinct', () => {
    const w = new TimelineWindow()
    const a = { ...fake(1, bob), id: `abcdef01${'1'.repeat(56)}` }
    const b = { ...fake(2, bob), id: `abcdef01${'2'.repeat(56)}` }
    w.push(a)
    w.push(b)
    w.push(fake(3, bob, 0))
    expect(w.previousTag(alice)).toEqual(['previous', 'abcdef01', '00000003'])
  })
})

describe('TimelineWindow.push', () => {
  it('deduplicates by id', () => {
    const w = new TimelineWindow()
    const e = fake(1, bob)
    w.push(e)
    w.push({ ...e })
    w.push({ ...e }, { older: true })
    expect(w.size).toBe(1)
  })

  it('keeps the newest 50, newest first, whatever the arrival order', () => {
    const w = new TimelineWindow()
    const order = Array.from({ length: 120 }, (_, i) => (i * 37) % 120)
    for (const n of order) w.push(fake(n + 1, bob))
    expect(w.size).toBe(50)
    expect(w.events().map((e) => e.created_at)).toEqual(Array.from({ length: 50 }, (_, i) => 120 - i))
    w.push(fake(500, bob, 1))
    expect(w.size).toBe(50)
    expect(w.events().some((e) => e.id === hexId(500))).toBe(false)
  })

  it('orders one second by arrival, the latest first as the relay ring does, never by id (decision 21)', () => {
    const w = new TimelineWindow()
    w.push(fake(3, bob, 10))
    w.push(fake(1, bob, 10))
    w.push(fake(2, bob, 10))
    expect(ids(w)).toEqual([hexId(2), hexId(1), hexId(3)])
    expect(w.previousTag(alice)).toEqual(['previous', '00000002', '00000001', '00000003'])
  })

  it('puts a page of history (newest first) after the events held in its second, in page order', () => {
    const w = new TimelineWindow()
    w.push(fake(5, bob, 10)) // live
    for (const e of [fake(9, bob, 11), fake(2, bob, 10), fake(1, bob, 10), fake(4, bob, 9)])
      w.push(e, { older: true })
    expect(ids(w)).toEqual([hexId(9), hexId(5), hexId(2), hexId(1), hexId(4)])
    w.push(fake(7, bob, 10)) // live again: after everything held
    expect(ids(w).slice(1, 3)).toEqual([hexId(7), hexId(5)])
  })

  it('at capacity, takes a live event of the oldest second but not a history one', () => {
    const w = new TimelineWindow(2)
    w.push(fake(1, bob, 10))
    w.push(fake(2, bob, 11))
    w.push(fake(3, bob, 10), { older: true })
    expect(ids(w)).toEqual([hexId(2), hexId(1)])
    w.push(fake(4, bob, 10))
    expect(ids(w)).toEqual([hexId(2), hexId(4)])
    w.push(fake(1, bob, 12)) // the one let go of may come back
    expect(ids(w)).toEqual([hexId(1), hexId(2)])
    expect(new TimelineWindow(0).capacity).toBe(50)
  })

  it('clear empties it, so a refill starts fresh', () => {
    const w = new TimelineWindow()
    w.push(fake(1, bob))
    w.clear()
    expect([w.size, w.previousTag(alice)]).toEqual([0, undefined])
    w.push(fake(1, bob))
    expect(w.size).toBe(1)
  })

  it('ignores values that are not events', () => {
    const w = new TimelineWindow()
    for (const junk of [
      null,
      {},
      { id: 'short', created_at: 1 },
      { id: hexId(1) },
      { id: hexId(1), created_at: Number.NaN },
    ]) {
      w.push(junk as unknown as NostrEvent)
    }
    expect(w.size).toBe(0)
  })
})

describe('TimelineWindow deletions', () => {
  const deletion = (kind: number, pubkey: string, targets: string[], at = 100): NostrEvent => ({
    ...fake(at, pubkey, at, kind),
    id: hexId(0x1000 + at),
    tags: [['h', 'g'], ...targets.map((t) => ['e', t])],
  })

  it("drops what a moderator's 9005 names, whoever wrote it, so the next `previous` names what the relay still holds", () => {
    const w = new TimelineWindow()
    for (let n = 1; n <= 4; n++) w.push(fake(n, bob))
    w.push(deletion(9005, carol, [hexId(4), hexId(3)]))
    expect(ids(w)).toEqual([hexId(0x1000 + 100), hexId(2), hexId(1)])
    expect(w.previousTag(alice)).toEqual([
      'previous',
      hexId(0x1000 + 100).slice(0, 8),
      hexId(2).slice(0, 8),
      hexId(1).slice(0, 8),
    ])
  })

  it('drops what a NIP-09 kind 5 names only when its author wrote it', () => {
    const w = new TimelineWindow()
    w.push(fake(1, bob))
    w.push(fake(2, carol))
    w.push(deletion(5, bob, [hexId(1), hexId(2)]))
    expect(ids(w)).toEqual([hexId(0x1000 + 100), hexId(2)])
  })

  it('does not take in a deleted event met after its deletion (a page of history, newest first)', () => {
    const w = new TimelineWindow()
    w.push(deletion(9005, carol, [hexId(2)]), { older: true })
    w.push(fake(2, bob), { older: true })
    w.push(fake(1, bob), { older: true })
    w.push(deletion(5, bob, [hexId(3)], 101))
    w.push(fake(3, carol)) // not Bob's: his kind 5 cannot delete it
    expect(ids(w)).toEqual([hexId(0x1000 + 101), hexId(0x1000 + 100), hexId(3), hexId(1)])
  })
})

describe('TimelineWindow.replace', () => {
  it('takes a page that is not full whole, in page order within a second', () => {
    const w = new TimelineWindow(4)
    w.push(fake(9, bob, 50))
    w.replace([fake(3, bob, 20), fake(2, bob, 10), fake(1, bob, 10)])
    expect(ids(w)).toEqual([hexId(3), hexId(2), hexId(1)])
  })

  it('leaves out the oldest second of a full page: a REQ orders ties by id, the relay ring by arrival', () => {
    const w = new TimelineWindow(4)
    w.replace([fake(4, bob, 30), fake(3, bob, 20), fake(2, bob, 10), fake(1, bob, 10)])
    expect(ids(w)).toEqual([hexId(4), hexId(3)])
    w.replace([fake(4, bob, 10), fake(3, bob, 10), fake(2, bob, 10), fake(1, bob, 10)])
    expect(w.size).toBe(0)
  })
})

describe('timelineOrder', () => {
  it('orders by created_at, then the arrival sequence, then id', () => {
    const a = fake(2, bob, 10)
    const b = fake(1, bob, 10)
    expect(timelineOrder(a, 5, fake(1, bob, 11), 1)).toBeLessThan(0)
    expect(timelineOrder(a, 1, b, 2)).toBeLessThan(0)
    expect(timelineOrder(a, 2, b, 1)).toBeGreaterThan(0)
    expect(timelineOrder(a, 1, b, 1)).toBeGreaterThan(0)
    expect(timelineOrder(a, 1, a, 1)).toBe(0)
  })
})

describe('TimelineWindow properties', () => {
  const me = 'a'.repeat(64)
  const other = 'b'.repeat(64)
  const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/)
  const asEvent = (r: { id: string; created_at: number; mine: boolean; kind: number }): NostrEvent => ({
    id: r.id,
    pubkey: r.mine ? me : other,
    created_at: r.created_at,
    kind: r.kind,
    tags: [],
    content: '',
    sig: '',
  })
  const record = (id: fc.Arbitrary<string>, maxSecond: number) =>
    fc.record({
      id,
      created_at: fc.integer({ min: 0, max: maxSecond }),
      mine: fc.boolean(),
      kind: fc.constantFrom(1, 7, 9, 11, 1111, 9000, 30023),
      older: fc.boolean(),
    })

  /** The rule written plainly: every push numbered, everything held sorted, the rest cut off. */
  function model(pushes: readonly { event: NostrEvent; older: boolean }[], capacity: number): NostrEvent[] {
    let held: { event: NostrEvent; seq: number }[] = []
    let newest = 0
    let oldest = 0
    for (const { event, older } of pushes) {
      if (held.some((h) => h.event.id === event.id)) continue
      const seq = older ? --oldest : ++newest
      held = [...held, { event, seq }]
        .sort(
          (x, y) =>
            y.event.created_at - x.event.created_at ||
            y.seq - x.seq ||
            (x.event.id < y.event.id ? -1 : x.event.id > y.event.id ? 1 : 0),
        )
        .slice(0, capacity)
    }
    return held.map((h) => h.event)
  }

  const expectedTag = (held: readonly NostrEvent[]) => {
    const prefixes = [...new Set(held.filter((e) => e.pubkey !== me).map((e) => e.id.slice(0, 8)))].slice(
      0,
      3,
    )
    return prefixes.length === 0 ? undefined : ['previous', ...prefixes]
  }

  it('matches the model for any pushes, live or from history: the newest by decision 21, ≤3 prefixes of the newest by others', () => {
    fc.assert(
      fc.property(fc.array(record(hex64, 40), { maxLength: 120 }), (raw) => {
        const pushes = raw.map((r) => ({ event: asEvent(r), older: r.older }))
        const w = new TimelineWindow()
        for (const { event, older } of pushes) w.push(event, { older })
        const held = model(pushes, 50)
        expect(ids(w)).toEqual(held.map((e) => e.id))
        expect(w.previousTag(me)).toEqual(expectedTag(held))
      }),
    )
  })

  it('matches the model with a small window, repeated ids and events coming back after they were let go of', () => {
    const smallIds = fc.integer({ min: 0, max: 12 }).map((n) => hexId(n))
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.array(record(smallIds, 4), { maxLength: 60 }),
        (capacity, raw) => {
          const pushes = raw.map((r) => ({ event: asEvent(r), older: r.older }))
          const w = new TimelineWindow(capacity)
          for (const { event, older } of pushes) w.push(event, { older })
          expect(ids(w)).toEqual(model(pushes, capacity).map((e) => e.id))
          expect(w.size).toBeLessThanOrEqual(capacity)
        },
      ),
    )
  })

  it('live events in the order a relay accepted them (created_at never going back) are its ring: the last 50, latest first', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(hex64, fc.integer({ min: 0, max: 3 })), { maxLength: 120 }), (raw) => {
        let second = 0
        const accepted: NostrEvent[] = []
        for (const [id, step] of raw) {
          second += step
          if (!accepted.some((e) => e.id === id))
            accepted.push(asEvent({ id, created_at: second, mine: false, kind: 9 }))
        }
        const w = new TimelineWindow()
        for (const e of accepted) w.push(e)
        expect(ids(w)).toEqual(
          accepted
            .slice(-50)
            .reverse()
            .map((e) => e.id),
        )
      }),
    )
  })

  it('replace is the page pushed as history, less its oldest second when the page is full', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.uniqueArray(record(hex64, 6), { maxLength: 12, selector: (r) => r.id }),
        (capacity, raw) => {
          const page = raw.map(asEvent).sort((x, y) => y.created_at - x.created_at)
          const w = new TimelineWindow(capacity)
          w.push(asEvent({ id: hexId(99), created_at: 100, mine: false, kind: 9 }))
          w.replace(page)
          const oldest = Math.min(...page.map((e) => e.created_at))
          const kept = page.length >= capacity ? page.filter((e) => e.created_at > oldest) : page
          expect(ids(w)).toEqual(
            model(
              kept.map((event) => ({ event, older: true })),
              capacity,
            ).map((e) => e.id),
          )
        },
      ),
    )
  })

  it('timelineOrder is a total order: antisymmetric and transitive', () => {
    const item = fc.record({
      id: hex64,
      created_at: fc.integer({ min: 0, max: 3 }),
      seq: fc.integer({ min: -3, max: 3 }),
    })
    fc.assert(
      fc.property(item, item, item, (a, b, c) => {
        const cmp = (x: typeof a, y: typeof a) => Math.sign(timelineOrder(x, x.seq, y, y.seq))
        expect(cmp(a, b)).toBe(-cmp(b, a))
        if (cmp(a, b) <= 0 && cmp(b, c) <= 0) expect(cmp(a, c)).toBeLessThanOrEqual(0)
        if (cmp(a, b) === 0) expect(a.id).toBe(b.id)
      }),
    )
  })
})
