import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { DraftBook, EMPTY_DRAFT, parseStoredDraft } from '../../src/model/drafts'

const ADA = 'a'.repeat(64)
const BOB = 'b'.repeat(64)
const TALK = "ws://127.0.0.1:7777'talk"
const LOBBY = "ws://127.0.0.1:7777'lobby"

/** localStorage in memory, counting writes; `full` makes every write throw like a full quota. */
function memoryStorage() {
  const map = new Map<string, string>()
  const s = {
    writes: 0,
    full: false,
    map,
    get length() {
      return map.size
    },
    key: (i: number) => [...map.keys()][i] ?? null,
    getItem: (k: string) => map.get(k) ?? null,
    setItem(k: string, v: string) {
      if (s.full) throw new DOMException('quota', 'QuotaExceededError')
      s.writes++
      map.set(k, v)
    },
    removeItem: (k: string) => void map.delete(k),
  }
  return s
}

/** A clock and timers the test moves by hand. */
function fakeTime() {
  let now = 0
  let timers: { at: number; fn: () => void }[] = []
  return {
    now: () => now,
    schedule(fn: () => void, ms: number) {
      const t = { at: now + ms, fn }
      timers.push(t)
      return () => {
        timers = timers.filter((x) => x !== t)
      }
    },
    advance(ms: number) {
      const until = now + ms
      for (;;) {
        const due = timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0]
        if (!due) break
        now = due.at
        timers = timers.filter((t) => t !== due)
        due.fn()
      }
      now = until
    },
  }
}

function book(storage: ReturnType<typeof memoryStorage>, time = fakeTime(), account = ADA) {
  return new DraftBook({ account, storage, schedule: time.schedule, now: time.now })
}

describe('DraftBook', () => {
  test('typing is written once it pauses, not on every key, and a new book (a reload) reads it', () => {
    const storage = memoryStorage()
    const time = fakeTime()
    const drafts = book(storage, time)
    let text = ''
    for (const ch of 'half a thought') {
      text += ch
      drafts.set(TALK, { text, mentions: [] })
      time.advance(100)
    }
    expect(storage.writes).toBe(0)
    time.advance(400)
    expect(storage.writes).toBe(1)
    expect(book(storage).get(TALK)).toEqual({ text: 'half a thought', mentions: [] })
  })

  test('under continuous typing a write still happens within the longest wait', () => {
    const storage = memoryStorage()
    const time = fakeTime()
    const drafts = book(storage, time)
    for (let i = 0; i < 50; i++) {
      drafts.set(TALK, { text: 'x'.repeat(i + 1), mentions: [] })
      time.advance(100)
    }
    // 5 s of keys every 100 ms: written about every 2 s.
    expect(storage.writes).toBeGreaterThanOrEqual(2)
    expect(storage.writes).toBeLessThanOrEqual(3)
  })

  test('each group has its own draft; the same object comes back until it changes', () => {
    const drafts = book(memoryStorage())
    drafts.set(TALK, { text: 'for talk', mentions: [] })
    drafts.set(LOBBY, { text: 'for lobby', mentions: [] })
    const talk = drafts.get(TALK)
    expect(talk.text).toBe('for talk')
    expect(drafts.get(LOBBY).text).toBe('for lobby')
    expect(drafts.get(TALK)).toBe(talk)
    expect(drafts.get("ws://127.0.0.1:7777'other")).toBe(EMPTY_DRAFT)
  })

  test('a sent (emptied) draft is removed from storage at once, so a reload does not bring it back', () => {
    const storage = memoryStorage()
    const time = fakeTime()
    const drafts = book(storage, time)
    drafts.set(TALK, { text: 'about to send', mentions: [] })
    drafts.flush()
    drafts.set(TALK, { text: 'about to send!', mentions: [] })
    drafts.set(TALK, { text: '', mentions: [] })
    expect(storage.map.size).toBe(0)
    time.advance(5_000)
    expect(storage.map.size).toBe(0)
    expect(book(storage).get(TALK)).toBe(EMPTY_DRAFT)
  })

  test('flush writes what is pending (the page is hidden)', () => {
    const storage = memoryStorage()
    const drafts = book(storage)
    drafts.set(TALK, { text: 'typed just before closing', mentions: [] })
    drafts.flush()
    expect(book(storage).get(TALK).text).toBe('typed just before closing')
  })

  test('what comes back from a failed send goes before what was typed since, and is written at once', () => {
    const storage = memoryStorage()
    const drafts = book(storage)
    const pick = { label: '@Bob', pubkey: BOB }
    drafts.set(TALK, { text: 'typed since', mentions: [] })
    drafts.restore(
      TALK,
      [
        { text: 'first @Bob', mentions: [pick], replyTo: 'c'.repeat(64) },
        { text: 'second', mentions: [pick] },
      ],
      'invalid: content too long',
    )
    expect(drafts.get(TALK)).toEqual({
      text: 'first @Bob\nsecond\ntyped since',
      mentions: [pick],
      replyTo: 'c'.repeat(64),
      error: 'invalid: content too long',
    })
    // Kept without the error (it belongs to this page).
    expect(book(storage).get(TALK)).toEqual({
      text: 'first @Bob\nsecond\ntyped since',
      mentions: [pick],
      replyTo: 'c'.repeat(64),
    })
  })

  test('a 10,000-character draft is kept whole', () => {
    const storage = memoryStorage()
    const long = 'Lorem ipsum, dolor sit amet. '.repeat(400).slice(0, 10_000)
    const drafts = book(storage)
    drafts.restore(TALK, [{ text: long, mentions: [] }], 'invalid: content too long')
    expect(book(storage).get(TALK).text).toBe(long)
  })

  test('drafts are per account, and signing out forgets only that account', () => {
    const storage = memoryStorage()
    const ada = book(storage)
    const bob = book(storage, fakeTime(), BOB)
    ada.set(TALK, { text: "Ada's", mentions: [] })
    bob.set(TALK, { text: "Bob's", mentions: [] })
    ada.flush()
    bob.flush()
    storage.map.set('roost.settings.x', '{}')
    expect(book(storage, fakeTime(), BOB).get(TALK).text).toBe("Bob's")
    ada.clearAll()
    expect(ada.get(TALK)).toBe(EMPTY_DRAFT)
    expect(book(storage).get(TALK)).toBe(EMPTY_DRAFT)
    expect(book(storage, fakeTime(), BOB).get(TALK).text).toBe("Bob's")
    expect(storage.map.has('roost.settings.x')).toBe(true)
  })

  test('a full or refusing storage keeps the draft in memory and throws nothing', () => {
    const storage = memoryStorage()
    storage.full = true
    const drafts = book(storage)
    drafts.set(TALK, { text: 'still here', mentions: [] })
    expect(() => drafts.flush()).not.toThrow()
    expect(drafts.get(TALK).text).toBe('still here')
  })

  test('without storage (a private window) drafts last while the page is open', () => {
    const drafts = new DraftBook({ account: ADA })
    drafts.set(TALK, { text: 'in memory', mentions: [] })
    drafts.flush()
    expect(drafts.get(TALK).text).toBe('in memory')
  })
})

describe('parseStoredDraft', () => {
  test('keeps only well-formed fields: mentions and replies name 64-hex keys and ids', () => {
    const raw = JSON.stringify({
      text: 'hi @Bob',
      mentions: [{ label: '@Bob', pubkey: BOB }, { label: '@X', pubkey: 'nope' }, null, 5],
      replyTo: 'not an id',
      error: 'stored errors are ignored',
      media: [{ url: 'javascript:alert(1)' }],
    })
    expect(parseStoredDraft(raw)).toEqual({ text: 'hi @Bob', mentions: [{ label: '@Bob', pubkey: BOB }] })
  })

  test('property: anything stored (damaged JSON, other shapes) gives a valid draft or none, never a throw', () => {
    const anyJson = fc.oneof(
      fc.string(),
      fc.json(),
      fc
        .record(
          { text: fc.anything(), mentions: fc.anything(), replyTo: fc.anything() },
          { requiredKeys: [] },
        )
        .map((o) => JSON.stringify(o)),
    )
    fc.assert(
      fc.property(anyJson, (raw) => {
        const d = parseStoredDraft(raw)
        if (d === undefined) return
        expect(typeof d.text).toBe('string')
        for (const m of d.mentions) {
          expect(typeof m.label).toBe('string')
          expect(m.pubkey).toMatch(/^[0-9a-f]{64}$/)
        }
        if (d.replyTo !== undefined) expect(d.replyTo).toMatch(/^[0-9a-f]{64}$/)
        expect(Object.keys(d).every((k) => ['text', 'mentions', 'replyTo'].includes(k))).toBe(true)
      }),
    )
  })
})
