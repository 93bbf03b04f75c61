import { describe, expect, it } from 'vitest'
import { connect, fetch, h, publish, relay, user } from './helpers'

describe('NIP-09 kind 5 carrying the group’s h (decision 17)', () => {
  it('the author withdraws their own message and reaction; a member’s kind 5 for another’s event deletes nothing', async () => {
    const r = await relay({ previousMinimum: 0 })
    const c = await connect(r.url)
    const a = user()
    const b = user()
    const g = await r.createGroup({})
    const msg = a.sign({ kind: 9, tags: h(g), content: 'teh typo' })
    const other = b.sign({ kind: 9, tags: h(g), content: 'keep me' })
    const react = a.sign({ kind: 7, tags: [...h(g), ['e', other.id], ['p', b.pk], ['k', '9']], content: '+' })
    for (const e of [msg, other, react]) expect((await publish(c, e)).ok).toBe(true)

    // Bob tries to withdraw Alice's message and reaction: accepted as a kind 5, but it deletes nothing.
    const forged = b.sign({
      kind: 5,
      tags: [...h(g), ['e', msg.id], ['e', react.id], ['k', '9'], ['k', '7']],
    })
    await publish(c, forged)
    const ids = [msg.id, other.id, react.id]
    expect((await fetch(c, [{ ids }])).events.map((e) => e.id).sort()).toEqual([...ids].sort())

    const del = a.sign({ kind: 5, tags: [...h(g), ['e', msg.id], ['e', react.id], ['k', '9'], ['k', '7']] })
    expect(await publish(c, del)).toEqual({ ok: true, message: '' })
    expect((await fetch(c, [{ ids }])).events.map((e) => e.id)).toEqual([other.id])
    // Members reading the group see the deletion itself, so their clients hide the events.
    expect((await fetch(c, [{ kinds: [5], '#h': [g] }])).events.map((e) => e.id)).toContain(del.id)
    // A withdrawn event cannot be published again.
    expect((await publish(c, msg)).ok).toBe(false)
  })
})
