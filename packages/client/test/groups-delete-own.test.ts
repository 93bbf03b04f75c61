import { afterEach, describe, expect, it } from 'vitest'
import { CannotSendError, type Group, type GroupSnapshot } from '../src'
import { groupCode, Harness, until as untilWithin } from './helpers'

const h = new Harness()
const PATIENCE = 15_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)
const client = () => h.roost({ pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })
afterEach(() => h.close())

describe('Group.deleteOwn (NIP-09 kind 5, decision 17)', () => {
  it('withdraws my message and my reaction live for another member; another’s event is refused', async () => {
    const relay = await h.relay({ profile: 'roost' })
    const id = await relay.createGroup({ name: 'Oops' })
    const alice = client()
    const bob = client()
    const a = await alice.groups.join(groupCode(relay, id))
    const b = await bob.groups.join(groupCode(relay, id))
    await until(a, (s) => s.membership.status === 'member')
    await until(b, (s) => s.membership.status === 'member')

    const typo = await a.sendMessage('teh typo')
    const keep = await b.sendMessage('hello')
    await until(a, (s) => s.messages.some((m) => m.id === keep.id))
    const reaction = await a.react(keep, '🔥')
    await until(b, (s) => s.messages.find((m) => m.id === keep.id)?.reactions.length === 1)
    await until(b, (s) => s.messages.some((m) => m.id === typo.id))

    // Someone else's message: refused before anything is signed or sent.
    const bobsRow = a.snapshot().messages.find((m) => m.id === keep.id)!
    await expect(a.deleteOwn(bobsRow)).rejects.toBeInstanceOf(CannotSendError)

    const deletion = await a.deleteOwn(typo, 'typo')
    expect(deletion.kind).toBe(5)
    expect(deletion.tags).toEqual(
      expect.arrayContaining([
        ['h', id],
        ['e', typo.id],
        ['k', '9'],
      ]),
    )
    expect(deletion.content).toBe('typo')
    await until(b, (s) => !s.messages.some((m) => m.id === typo.id)) // gone live for Bob
    expect(a.snapshot().messages.some((m) => m.id === typo.id)).toBe(false) // and at once for Alice

    await a.deleteOwn(reaction)
    await until(b, (s) => s.messages.find((m) => m.id === keep.id)?.reactions.length === 0)
    expect(b.snapshot().messages.some((m) => m.id === keep.id)).toBe(true) // Bob's message stays

    // The relay dropped them too: a fresh reader sees neither.
    const stored = await bob.pool.fetch([relay.url], [{ ids: [typo.id, reaction.id, keep.id] }])
    expect(stored.map((e) => e.id)).toEqual([keep.id])
  })
})
