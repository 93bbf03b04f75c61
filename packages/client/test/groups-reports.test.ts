import { GroupMetadata, parseReport } from '@roost/nip29'
import { afterEach, describe, expect, it } from 'vitest'
import type { Group, GroupSnapshot } from '../src'
import { groupCode, Harness, until as untilWithin } from './helpers'

const h = new Harness()
const PATIENCE = 15_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)
const client = () => h.roost({ pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })
afterEach(() => h.close())

describe('reports and invite terms', () => {
  it('a member reports a message and a person; the admin reads both (after AUTH), another member none', async () => {
    const relay = await h.relay()
    const [admin, bob, carol] = [client(), client(), client()]
    const [adminPk, bobPk, carolPk] = [admin, bob, carol].map((c) => c.signer.publicKey)
    const id = await relay.createGroup({ name: 'Club', admins: [adminPk!], members: [bobPk!, carolPk!] })
    const [a, b, c] = await Promise.all([admin, bob, carol].map((x) => x.groups.join(groupCode(relay, id))))
    for (const g of [a!, b!, c!]) await until(g, (s) => s.membership.status === 'member')
    const spam = await b!.sendMessage('cheap pills here')
    await until(c!, (s) => s.messages.some((m) => m.id === spam.id))
    const message = c!.snapshot().messages.find((m) => m.id === spam.id)!
    const onMessage = await c!.report(message, { type: 'spam', reason: 'pill adverts' })
    const onPerson = await c!.report(bobPk!, { type: 'impersonation', reason: 'calls himself the admin' })
    expect(parseReport(onMessage)).toMatchObject({ type: 'spam', eventId: spam.id, pubkey: bobPk })
    expect(parseReport(onPerson)).toMatchObject({ type: 'impersonation', pubkey: bobPk })

    const reports = { kinds: [1984], '#h': [id] }
    const got = await admin.pool.fetch([relay.url], [reports])
    expect(got.map((e) => e.id).sort()).toEqual([onMessage.id, onPerson.id].sort())
    expect(await bob.pool.fetch([relay.url], [reports])).toEqual([])
  })

  it('an invite made with uses: 2 admits two newcomers by its link, then refuses the third', async () => {
    const relay = await h.relay()
    const admin = client()
    const id = await relay.createGroup({ name: 'Club', closed: true, admins: [admin.signer.publicKey] })
    const g = await admin.groups.join(groupCode(relay, id))
    await until(g, (s) => s.membership.status === 'member' && s.metadata !== undefined)
    const expiresAt = Math.floor(Date.now() / 1000) + 3600
    const { code, link } = await g.admin.createInvite(undefined, { uses: 2, expiresAt })
    expect(link).toBe(GroupMetadata.parse(g.metadataEvent!).naddr(relay.url, code))
    expect(relay.state(id)?.inviteTerms).toEqual({ [code]: { left: 2, expires: expiresAt } })
    const statuses = []
    // The relay's own 9000 decides a newcomer's membership; it may come just after the join's OK.
    for (let i = 0; i < 3; i++) {
      const joined = await client().groups.join(link!)
      statuses.push((await until(joined, (s) => s.membership.status !== 'pending')).membership)
    }
    expect(statuses.map((m) => m.status)).toEqual(['member', 'member', 'refused'])
    expect(statuses[2]).toMatchObject({ reason: 'restricted: invalid or already used invite code' })
  })
})
