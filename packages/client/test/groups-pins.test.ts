import { afterEach, describe, expect, it } from 'vitest'
import { type Group, type GroupSnapshot, PublishRefusedError } from '../src'
import { groupCode, Harness, until as untilWithin } from './helpers'

const h = new Harness()
const PATIENCE = 15_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)
const client = () => h.roost({ pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })
afterEach(() => h.close())

describe('Group.pins / Group.setPins (9010 → 39005, decision 19)', () => {
  it('an admin pins and reorders messages, a member sees it live; a member cannot pin', async () => {
    const relay = await h.relay({ profile: 'roost' })
    const admin = client()
    const bob = client()
    const g = await admin.groups.create(relay.url, { name: 'Pinned' })
    await until(g, (s) => s.membership.status === 'member' && s.metadata?.name === 'Pinned')
    expect(g.pins()).toEqual([])
    const b = await bob.groups.join(groupCode(relay, g.key.id.value))
    await until(b, (s) => s.membership.status === 'member')

    const first = await g.sendMessage('rules')
    const second = await b.sendMessage('faq')
    await until(g, (s) => s.messages.some((m) => m.id === second.id))

    const pin = await g.setPins([first.id, second.id])
    expect(pin.kind).toBe(9010)
    await until(b, (s) => s.pins.length === 2)
    expect(b.pins()).toEqual([first.id, second.id])

    await g.setPins([second.id]) // the full list replaces the old one
    await until(b, (s) => s.pins.length === 1)
    expect(b.snapshot().pins).toEqual([second.id])
    await until(g, (s) => s.pins.length === 1)

    await expect(b.setPins([first.id])).rejects.toBeInstanceOf(PublishRefusedError)
    expect(b.pins()).toEqual([second.id])
  })
})
