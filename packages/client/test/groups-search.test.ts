import { finalizeEvent } from 'nostr-tools/pure'
import { afterEach, describe, expect, it } from 'vitest'
import { type Group, type GroupSnapshot, InvalidQueryError } from '../src'
import { groupCode, Harness, until as untilWithin } from './helpers'

const h = new Harness()
const PATIENCE = 15_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)
const client = () => h.roost({ pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })
afterEach(() => h.close())

describe('search (Group.search, GroupsRegistry.search, Roost.search)', () => {
  it('finds messages in one group and across groups, newest first, each hit naming its group', async () => {
    const relay = await h.relay({ profile: 'roost' })
    const general = await relay.createGroup({ name: 'General' })
    const food = await relay.createGroup({ name: 'Food' })
    const alice = client()
    const bob = client()
    const a1 = await alice.groups.join(groupCode(relay, general))
    const a2 = await alice.groups.join(groupCode(relay, food))
    const b1 = await bob.groups.join(groupCode(relay, general))
    await until(a1, (s) => s.membership.status === 'member')
    await until(a2, (s) => s.membership.status === 'member')
    await until(b1, (s) => s.membership.status === 'member')

    const first = await b1.sendMessage('Pizza on Friday?')
    await until(a1, (s) => s.messages.some((m) => m.id === first.id))
    const second = await a2.sendMessage('best pizza recipe: thin crust')
    const other = await a1.sendMessage('unrelated chatter')

    const inGeneral = await a1.search('pizza')
    expect(inGeneral.map((x) => x.event.id)).toEqual([first.id])
    expect(inGeneral[0]?.group).toBe(a1.key.toString())

    const everywhere = await alice.search('PIZ')
    expect(new Set(everywhere.map((x) => x.event.id))).toEqual(new Set([first.id, second.id]))
    expect(everywhere.find((x) => x.event.id === second.id)?.group).toBe(a2.key.toString())
    const times = everywhere.map((x) => x.event.created_at)
    expect([...times].sort((x, y) => y - x)).toEqual(times)
    // Found in the cache and on the relay (the bundled relay lists NIP-50): one hit each.
    expect(everywhere.every((x) => x.from === 'both')).toBe(true)
    expect((await alice.groups.search('pizza', { relays: false })).every((x) => x.from === 'cache')).toBe(
      true,
    )
    expect(await alice.search('chatter pizza')).toEqual([])
    expect((await alice.search('chatter')).map((x) => x.event.id)).toEqual([other.id])
    await expect(alice.search('x'.repeat(300))).rejects.toBeInstanceOf(InvalidQueryError)
  })

  it('asks the relay (NIP-50) for history the cache does not hold, and leaves out deleted messages', async () => {
    const relay = await h.relay({ profile: 'roost', previousMinimum: 0, lateWindow: 0 })
    const alice = client()
    const me = await alice.signer.getPublicKey()
    const id = await relay.createGroup({ name: 'Archive', members: [me] })
    // 120 old messages sent before this device joined: it loads only the newest page (100 events).
    const t0 = Math.floor(Date.now() / 1000) - 1_000
    const old = Array.from({ length: 120 }, (_, i) =>
      finalizeEvent(
        {
          kind: 9,
          tags: [['h', id]],
          content: i === 0 ? 'the needle in the archive' : `filler ${i}`,
          created_at: t0 + i,
        },
        alice.signer.secretKey,
      ),
    )
    // One after another, so the relay's arrival order is the created_at order (its `previous` window).
    for (const e of old) expect((await alice.pool.publish([relay.url], e))[0]?.ok).toBe(true)
    const group = await alice.groups.join(groupCode(relay, id))
    await until(group, (s) => s.membership.status === 'member' && s.messages.length >= 90)
    expect(group.snapshot().messages.some((m) => m.id === old[0]?.id)).toBe(false)

    expect(await group.search('needle', { relays: false })).toEqual([])
    const [hit] = await group.search('needle')
    expect(hit?.event.id).toBe(old[0]?.id)
    expect(hit?.from).toBe('relay')

    // Sent and withdrawn (NIP-09) from another device of Alice's, heard live here.
    const sign = (kind: number, content: string, tags: string[][]) =>
      finalizeEvent(
        { kind, tags: [['h', id], ...tags], content, created_at: Math.floor(Date.now() / 1000) },
        alice.signer.secretKey,
      )
    const mine = sign(9, 'a needle I regret', [])
    expect((await alice.pool.publish([relay.url], mine))[0]?.ok).toBe(true)
    await until(group, (s) => s.messages.some((m) => m.id === mine.id))
    expect((await group.search('regret')).map((x) => x.event.id)).toEqual([mine.id])
    const withdrawal = sign(5, '', [
      ['e', mine.id],
      ['k', '9'],
    ])
    expect((await alice.pool.publish([relay.url], withdrawal))[0]?.ok).toBe(true)
    await until(group, (s) => !s.messages.some((m) => m.id === mine.id))
    expect(await group.search('regret', { relays: false })).toEqual([])
    expect(await group.search('regret')).toEqual([])
  }, 60_000)
})
