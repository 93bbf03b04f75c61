import { GroupMetadata } from '@roost/nip29'
import type { RelayProfile } from '@roost/relay'
import { afterEach, describe, expect, it } from 'vitest'
import { AuthRequiredError, type Group, type GroupSnapshot } from '../src'
import { groupCode, Harness, until as untilWithin } from './helpers'

const h = new Harness()

/**
 * Everything here awaits the state itself (`until` re-checks on each group event). Deadlines are
 * only diagnostics, kept well inside the test timeout: on a loaded machine a round trip can take
 * seconds, and a 3 s publish or EOSE deadline, or a 5 s wait, would fail a test that is fine.
 */
const PATIENCE = 15_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)
const client = (opts: Parameters<Harness['roost']>[0] = {}) =>
  h.roost({ ...opts, pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE, ...opts.pool } })
afterEach(() => h.close())

describe('joining', () => {
  it('joins an open group, and two clients see each other’s messages live', async () => {
    const relay = await h.relay()
    const id = await relay.createGroup({ name: 'Open', closed: false })
    const alice = client()
    const bob = client()
    const a = await alice.groups.join(groupCode(relay, id))
    const b = await bob.groups.join(groupCode(relay, id))
    await until(a, (s) => s.membership.status === 'member' && s.metadata !== undefined)
    await until(b, (s) => s.membership.status === 'member')
    expect(a.snapshot().metadata?.name).toBe('Open')
    expect(a.snapshot().relayKey).toBe(relay.pubkey)

    const sent = await a.sendMessage('hello from alice')
    await until(b, (s) => s.messages.some((m) => m.id === sent.id))
    await b.sendMessage('hi alice', { replyTo: sent })
    const s = await until(a, (s) => s.messages.some((m) => m.content.endsWith('\nhi alice')))
    const reply = s.messages.find((m) => m.content.endsWith('\nhi alice'))!
    expect(reply.replyTo).toContain(sent.id)
    expect(reply.mine).toBe(false)
    expect(s.messages.find((m) => m.id === sent.id)?.mine).toBe(true)

    await b.react(s.messages.find((m) => m.id === sent.id)!, '🔥')
    const withReaction = await until(
      a,
      (s) => (s.messages.find((m) => m.id === sent.id)?.reactions.length ?? 0) > 0,
    )
    expect(withReaction.messages.find((m) => m.id === sent.id)?.reactions).toEqual([
      { emoji: '🔥', count: 1, pubkeys: [await bob.signer.getPublicKey()], mine: false },
    ])
    // joined groups are listed in the account's 10009
    expect(alice.groups.groupList().has(a.key)).toBe(true)
  })

  const closedCases: { profile: RelayProfile; without: 'refused' | 'pending' }[] = [
    { profile: 'roost', without: 'pending' },
    { profile: 'strict', without: 'refused' },
    { profile: 'pyramid', without: 'refused' },
    { profile: 'relay29', without: 'pending' },
    { profile: 'groups_relay', without: 'pending' },
    { profile: 'zooid', without: 'pending' },
  ]
  for (const { profile, without } of closedCases) {
    it(`closed group on ${profile}: without a code → ${without}; with a code → member`, async () => {
      const relay = await h.relay({ profile })
      const id = await relay.createGroup({ name: 'Closed', closed: true })
      const carol = client()
      const g = await carol.groups.join(groupCode(relay, id))
      const s = g.snapshot()
      expect(s.membership.status).toBe(without)
      if (s.membership.status === 'refused') expect(s.membership.reason).toMatch(/^restricted: /)
      expect(carol.groups.groupList().has(g.key)).toBe(true) // listed with its access state
      if (profile === 'relay29' || profile === 'zooid') return // relay29 rejects invite codes, zooid ignores them

      const code = await relay.createInvite(id)
      await until(g, (s) => s.metadata !== undefined) // the 39000 may still be on its way
      const meta = GroupMetadata.parse(g.metadataEvent!)
      const again = await carol.groups.join(meta.naddr(relay.url, code))
      expect(again).toBe(g)
      await until(g, (s) => s.membership.status === 'member')
      expect(relay.state(id)?.members).toContain(await carol.signer.getPublicKey())
    })
  }

  it('on zooid (AUTH for every REQ and EVENT, NIP-11 self ≠ pubkey) joins and trusts only the self key', async () => {
    const relay = await h.relay({ profile: 'zooid' })
    expect(relay.ownerPubkey).not.toBe(relay.pubkey)
    const id = await relay.createGroup({ name: 'Zoo' })
    const erin = client()
    const g = await erin.groups.join(groupCode(relay, id))
    await until(g, (s) => s.membership.status === 'member' && s.metadata?.name === 'Zoo')
    expect(g.snapshot().relayKey).toBe(relay.pubkey)
    expect(erin.pool.authState(relay.url)).toBe('authenticated')
    await g.sendMessage('hello zoo')
  })

  it('a hidden private group answers no 39000 to strangers: the join goes on without it', async () => {
    const relay = await h.relay({ profile: 'pyramid' })
    const id = await relay.createGroup({ name: 'Hidden', hidden: true, private: true, closed: true })
    const code = await relay.createInvite(id)
    const fay = client()
    const g = await fay.groups.join(groupCode(relay, id))
    expect(g.snapshot().metadata).toBeUndefined()
    expect(g.snapshot().membership.status).toBe('refused')
    expect(g.snapshot().canSend).toMatchObject({ ok: false, reason: 'refused' }) // no metadata to go on
    await fay.groups.join(groupCode(relay, id), { code })
    const s = await until(g, (s) => s.membership.status === 'member' && s.metadata !== undefined)
    expect(s.metadata).toMatchObject({ name: 'Hidden', hidden: true, private: true })
    expect(s.canSend).toEqual({ ok: true })
    // The standing REQ was refused while we were a stranger; once in, we read the group live.
    const owner = client()
    const o = await owner.groups.join(groupCode(relay, id), { code: await relay.createInvite(id) })
    await until(o, (s) => s.membership.status === 'member' && !s.loading)
    await o.sendMessage('welcome, fay')
    await until(g, (s) => s.messages.some((m) => m.content === 'welcome, fay'))
  })

  it('browses a relay’s public groups, signed by the relay key', async () => {
    const relay = await h.relay({ profile: 'strict' })
    await relay.createGroup({ id: 'books', name: 'Books' })
    await relay.createGroup({ id: 'films', name: 'Films' })
    const hank = client()
    const found = await hank.groups.browse(relay.url)
    expect(found.map((m) => [m.id, m.name]).sort()).toEqual([
      ['books', 'Books'],
      ['films', 'Films'],
    ])
    expect(found.every((m) => m.relayKey === relay.pubkey)).toBe(true)
    const g = await hank.groups.join(found[0]!.naddr(relay.url))
    expect(g.key.id.value).toBe(found[0]!.id)
  })

  it('with NIP-42 policy never, every refusal is visible: the REQ, the join and the send', async () => {
    const relay = await h.relay({ profile: 'zooid' }) // AUTH for everything
    const id = await relay.createGroup({ name: 'Zoo' })
    const gus = client({ pool: { authPolicy: () => 'never' } })
    const g = await gus.groups.join(groupCode(relay, id))
    const s = await until(g, (s) => s.refused !== undefined)
    expect(s.refused).toMatch(/^auth-required: /)
    expect(s.membership).toEqual({ status: 'refused', reason: expect.stringMatching(/^auth-required: /) })
    const err = await g.sendMessage('hi').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(AuthRequiredError)
    expect((err as AuthRequiredError).relayMessage).toMatch(/^auth-required: /)
    expect(gus.pool.authState(relay.url)).toBe('challenged')
  })

  it('joins a private group through NIP-42: the refused REQ is authenticated and retried', async () => {
    const relay = await h.relay({ profile: 'strict' })
    const dave = client()
    const davePk = await dave.signer.getPublicKey()
    const id = await relay.createGroup({ name: 'Secret', private: true, closed: true })
    const code = await relay.createInvite(id)
    const outsider = client()
    const o = await outsider.groups.join(groupCode(relay, id))
    await until(o, (s) => s.refused !== undefined || s.membership.status === 'refused')
    expect(o.snapshot().messages).toHaveLength(0)

    const g = await dave.groups.join(groupCode(relay, id), { code })
    await until(g, (s) => s.membership.status === 'member' && !s.loading && s.metadata !== undefined)
    expect(dave.pool.authState(relay.url)).toBe('authenticated')
    expect(g.snapshot().metadata?.private).toBe(true)
    await g.sendMessage('only members read this')
    expect(relay.state(id)?.members).toContain(davePk)
    expect(o.snapshot().messages.some((m) => m.content === 'only members read this')).toBe(false)
  })
})
