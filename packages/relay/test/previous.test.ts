import { describe, expect, it } from 'vitest'
import { connect, fetch, h, publish, relay, TestClock, user } from './helpers'

async function setup(opts: Parameters<typeof relay>[0] = {}) {
  const clock = new TestClock()
  const r = await relay({ clock: clock.now, ...opts })
  const c = await connect(r.url)
  return { r, c, u: () => user(clock) }
}

describe('rule 23: previous', () => {
  it('accepts prefixes of the group’s last events and refuses unknown ones', async () => {
    const { r, c, u } = await setup({ previousMinimum: 0 })
    const a = u()
    const b = u()
    const g = await r.createGroup({})
    const first = a.sign({ kind: 9, tags: h(g), content: '1' })
    await publish(c, first)
    expect((await publish(c, b.sign({ kind: 9, tags: h(g, ['previous', first.id.slice(0, 8)]) }))).ok).toBe(
      true,
    )
    expect(await publish(c, b.sign({ kind: 9, tags: h(g, ['previous', 'deadbeef']), content: '2' }))).toEqual(
      {
        ok: false,
        message: "blocked: previous id 'deadbeef' wasn't found in this group",
      },
    )
  })

  it('checks every value of every previous tag, and their hex syntax', async () => {
    const { r, c, u } = await setup({ previousMinimum: 0 })
    const a = u()
    const g = await r.createGroup({})
    const first = a.sign({ kind: 9, tags: h(g), content: '1' })
    await publish(c, first)
    const ok = first.id.slice(0, 8)
    expect(
      await publish(c, a.sign({ kind: 9, tags: h(g, ['previous', ok], ['previous', ok, 'cafebabe']) })),
    ).toEqual({
      ok: false,
      message: "blocked: previous id 'cafebabe' wasn't found in this group",
    })
    expect(await publish(c, a.sign({ kind: 9, tags: h(g, ['previous', 'XYZ']) }))).toEqual({
      ok: false,
      message: "error: invalid value 'XYZ' in previous tag",
    })
  })

  it('only the last 50 events of this group count', async () => {
    const { r, c, u } = await setup({ previousMinimum: 0 })
    const a = u()
    const g = await r.createGroup({})
    const other = await r.createGroup({})
    const old = a.sign({ kind: 9, tags: h(g), content: 'old' })
    await publish(c, old)
    const elsewhere = a.sign({ kind: 9, tags: h(other), content: 'elsewhere' })
    await publish(c, elsewhere)
    expect(
      (await publish(c, a.sign({ kind: 9, tags: h(g, ['previous', elsewhere.id.slice(0, 8)]) }))).message,
    ).toMatch(/^blocked: previous id/)
    for (let i = 0; i < 50; i++) await publish(c, a.sign({ kind: 7, tags: h(g), content: String(i) }))
    expect(
      (await publish(c, a.sign({ kind: 9, tags: h(g, ['previous', old.id.slice(0, 8)]) }))).message,
    ).toBe(`blocked: previous id '${old.id.slice(0, 8)}' wasn't found in this group`)
  })

  it('strict mode needs 3 references, capped at the number of recent events by other authors', async () => {
    const { r, c, u } = await setup({ profile: 'strict' })
    const a = u()
    const b = u()
    const g = await r.createGroup({})
    // A new group holds the relay's 9007 and 9002: two events by another author.
    const made = (await fetch(c, [{ '#h': [g] }])).events
    expect(made.map((e) => e.kind).sort()).toEqual([9002, 9007])
    expect(await publish(c, a.sign({ kind: 9, tags: h(g), content: 'a0' }))).toEqual({
      ok: false,
      message: 'blocked: at least 2 previous references are required, got 0',
    })
    const refs = ['previous', ...made.map((e) => e.id.slice(0, 8))]
    const a1 = a.sign({ kind: 9, tags: h(g, refs), content: 'a1' })
    expect((await publish(c, a1)).ok).toBe(true)
    expect((await publish(c, b.sign({ kind: 9, tags: h(g, refs), content: 'b1' }))).message).toBe(
      'blocked: at least 3 previous references are required, got 2',
    )
    const b2 = b.sign({ kind: 9, tags: h(g, [...refs, a1.id.slice(0, 8)]), content: 'b2' })
    expect((await publish(c, b2)).ok).toBe(true)
  })

  it('joins and leaves need no references', async () => {
    const { r, c, u } = await setup({ profile: 'strict' })
    const a = u()
    const g = await r.createGroup({})
    await publish(c, u().sign({ kind: 9, tags: h(g), content: 'x' }))
    expect((await publish(c, a.sign({ kind: 9021, tags: h(g) }))).ok).toBe(true)
    expect((await publish(c, a.sign({ kind: 9022, tags: h(g) }))).ok).toBe(true)
  })

  it('the ring is rebuilt from storage after a restart', async () => {
    const { mkdtempSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const db = join(mkdtempSync(join(tmpdir(), 'roost-relay-')), 'r.db')
    const first = await relay({ db, previousMinimum: 0 })
    const c1 = await connect(first.url)
    const a = user()
    const g = await first.createGroup({})
    const msg = a.sign({ kind: 9, tags: h(g), content: 'before' })
    await publish(c1, msg)
    await first.close()
    const second = await relay({ db, previousMinimum: 0 })
    const c2 = await connect(second.url)
    expect((await publish(c2, a.sign({ kind: 9, tags: h(g, ['previous', msg.id.slice(0, 8)]) }))).ok).toBe(
      true,
    )
  })

  it('the ring rebuilt from storage is in arrival order: a late-dated event that arrived last stays in the window', async () => {
    const { mkdtempSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const db = join(mkdtempSync(join(tmpdir(), 'roost-relay-')), 'r.db')
    const clock = new TestClock()
    const first = await relay({ db, clock: clock.now, rateLimit: { events: 0, perSeconds: 1 } })
    const c1 = await connect(first.url)
    const g = await first.createGroup({})
    for (let i = 0; i < 55; i++)
      await publish(c1, user(clock).sign({ kind: 9, tags: h(g), content: `m${i}` }))
    // Signed two minutes ago (within the late window), arriving after 55 newer-dated messages.
    const late = user(clock).sign({ kind: 9, tags: h(g), content: 'late', created_at: clock.now() - 120 })
    expect((await publish(c1, late)).ok).toBe(true)
    await first.close()
    const second = await relay({ db, clock: clock.now })
    const c2 = await connect(second.url)
    const reply = user(clock).sign({ kind: 9, tags: h(g, ['previous', late.id.slice(0, 8)]), content: 're' })
    expect(await publish(c2, reply)).toEqual({ ok: true, message: '' })
  })
})
