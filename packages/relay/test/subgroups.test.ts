import type { NostrEvent } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { connect, fetch, h, publish, relay, TestClock, user } from './helpers'

async function setup() {
  const clock = new TestClock()
  const r = await relay({ clock: clock.now, previousMinimum: 0 })
  const c = await connect(r.url)
  const admin = user(clock)
  const [root, child, other] = [
    await r.createGroup({ id: 'root', admins: [admin.pk] }),
    await r.createGroup({ id: 'child', admins: [admin.pk] }),
    await r.createGroup({ id: 'other', admins: [admin.pk] }),
  ]
  const meta = async (id: string) =>
    (await fetch(c, [{ kinds: [39000], '#d': [id] }])).events[0] as NostrEvent
  return { r, c, clock, admin, root, child, other, meta, u: () => user(clock) }
}

describe('rule 17: subgroups (spec §1.10)', () => {
  it('NIP-11 advertises nip29.subgroups', async () => {
    const { r } = await setup()
    const res = await globalThis.fetch(r.url.replace('ws', 'http'), {
      headers: { Accept: 'application/nostr+json' },
    })
    expect(((await res.json()) as { nip29: unknown }).nip29).toEqual({ subgroups: true })
  })

  it('a 9002 with a parent tag links both sides: parent on the child, ordered child tags on the parent', async () => {
    const { c, admin, root, child, other, meta } = await setup()
    expect(
      (await publish(c, admin.sign({ kind: 9002, tags: h(child, ['name', 'C'], ['parent', root]) }))).ok,
    ).toBe(true)
    expect((await publish(c, admin.sign({ kind: 9002, tags: h(other, ['parent', root]) }))).ok).toBe(true)
    expect((await meta(child)).tags).toEqual([
      ['d', child],
      ['name', 'C'],
      ['parent', root],
    ])
    expect((await meta(root)).tags.filter((t) => t[0] === 'child')).toEqual([
      ['child', child],
      ['child', other],
    ])
  })

  it('refuses a missing parent, self-parenting, cycles and a non-admin of the parent', async () => {
    const { r, c, admin, root, child, u } = await setup()
    const edit = (g: string, ...tags: string[][]) =>
      publish(c, admin.sign({ kind: 9002, tags: h(g, ...tags) }))
    expect((await edit(child, ['parent', 'nope'])).message).toBe(
      "restricted: parent group 'nope' doesn't exist",
    )
    expect((await edit(child, ['parent', child])).message).toBe('restricted: would create a parent cycle')
    await edit(child, ['parent', root])
    expect((await edit(root, ['parent', child], ['child', child])).message).toBe(
      'restricted: would create a parent cycle',
    )
    expect((await edit(child, ['parent', root], ['parent', root])).message).toBe(
      'invalid: at most one parent tag',
    )
    const outsider = u()
    const own = await r.createGroup({ admins: [outsider.pk] })
    expect((await publish(c, outsider.sign({ kind: 9002, tags: h(own, ['parent', root]) }))).message).toBe(
      'restricted: must be an admin of the parent group',
    )
  })

  it('a 9002 on a parent must list every child, and may reorder them', async () => {
    const { c, admin, root, child, other, meta } = await setup()
    await publish(c, admin.sign({ kind: 9002, tags: h(child, ['parent', root]) }))
    await publish(c, admin.sign({ kind: 9002, tags: h(other, ['parent', root]) }))
    expect(
      (await publish(c, admin.sign({ kind: 9002, tags: h(root, ['name', 'R'], ['child', child]) }))).message,
    ).toBe("blocked: the child list must include every subgroup (missing 'other')")
    const reorder = admin.sign({
      kind: 9002,
      tags: h(root, ['name', 'R'], ['child', other], ['child', child]),
    })
    expect((await publish(c, reorder)).ok).toBe(true)
    expect((await meta(root)).tags.filter((t) => t[0] === 'child').map((t) => t[1])).toEqual([other, child])
  })

  it('a 9002 without parent makes the group a root; deleting a parent turns its children into roots', async () => {
    const { r, c, admin, root, child, other } = await setup()
    await publish(c, admin.sign({ kind: 9002, tags: h(child, ['parent', root]) }))
    await publish(c, admin.sign({ kind: 9002, tags: h(other, ['parent', root]) }))
    await publish(c, admin.sign({ kind: 9002, tags: h(other, ['name', 'free']) }))
    expect(r.state(other)?.parent).toBeUndefined()
    expect(r.state(root)?.children).toEqual([child])
    await publish(c, admin.sign({ kind: 9008, tags: h(root) }))
    expect(r.state(child)?.parent).toBeUndefined()
    const childMeta = (await fetch(c, [{ kinds: [39000], '#d': [child] }])).events[0]!
    expect(childMeta.tags.some((t) => t[0] === 'parent')).toBe(false)
  })

  it('moving a group to another parent relinks both parents; only an admin of the child may move it', async () => {
    const { r, c, admin, root, child, other, u } = await setup()
    await publish(c, admin.sign({ kind: 9002, tags: h(child, ['parent', root]) }))
    expect((await publish(c, admin.sign({ kind: 9002, tags: h(child, ['parent', other]) }))).ok).toBe(true)
    expect(r.state(root)?.children ?? []).toEqual([])
    expect(r.state(other)?.children).toEqual([child])
    expect(r.state(child)?.parent).toBe(other)
    // An admin of the new parent who does not admin the child cannot take it.
    const outsider = u()
    const own = await r.createGroup({ admins: [outsider.pk] })
    const taken = await publish(c, outsider.sign({ kind: 9002, tags: h(child, ['parent', own]) }))
    expect(taken.ok).toBe(false)
    expect(r.state(child)?.parent).toBe(other)
  })

  it('membership and roles never inherit', async () => {
    const { r, c, admin, root, child, u } = await setup()
    await publish(c, admin.sign({ kind: 9002, tags: h(child, ['parent', root]) }))
    const m = u()
    await publish(c, m.sign({ kind: 9021, tags: h(root) }))
    expect(r.state(root)?.members).toContain(m.pk)
    expect(r.state(child)?.members).not.toContain(m.pk)
  })
})
