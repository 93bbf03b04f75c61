import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Group, type GroupSnapshot, LocalSigner } from '../src'
import { SqliteEventStore } from '../src/sqlite'
import { groupCode, Harness, until as untilWithin } from './helpers'

const h = new Harness()
const PATIENCE = 15_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)
const client = (opts: Parameters<Harness['roost']>[0] = {}) =>
  h.roost({ ...opts, pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })
afterEach(() => h.close())

const who = (s: GroupSnapshot) => s.joinRequests.map((r) => r.pubkey).sort()

/** A closed group on a relay that queues joins for an admin (the groups_relay family). */
async function closedGroup() {
  const relay = await h.relay({ profile: 'groups_relay' })
  const adminSigner = LocalSigner.generate()
  const adminPk = await adminSigner.getPublicKey()
  const id = await relay.createGroup({ id: 'club', name: 'Club', closed: true, admins: [adminPk] })
  return { relay, adminSigner, adminPk, id, code: groupCode(relay, id) }
}

/** A raw 9021 with a reason and a code, as another client would send it. */
async function request(signer: LocalSigner, relay: string, id: string, reason: string, code: string) {
  const roost = client({ signer })
  const event = await signer.signEvent({
    kind: 9021,
    created_at: Math.floor(Date.now() / 1000),
    tags: [
      ['h', id],
      ['code', code],
    ],
    content: reason,
  })
  const [result] = await roost.pool.publish([relay], event)
  expect(result?.ok).toBe(true)
  return event
}

describe('Group.joinRequests (decision 19)', () => {
  it('an admin sees waiting requests with reason and code, approves one live, dismisses another (remembered)', async () => {
    const { relay, adminSigner, adminPk, id, code } = await closedGroup()
    const dir = h.tmp()
    const path = join(dir, 'admin.db')
    const admin = client({ signer: adminSigner, store: SqliteEventStore.open(path) })
    const g = await admin.groups.join(code)
    await until(g, (s) => s.membership.status === 'member' && s.admins?.contains(adminPk) === true)

    const bob = client()
    const b = await bob.groups.join(code)
    await until(b, (s) => s.membership.status === 'pending')
    const carol = LocalSigner.generate()
    const carolRequest = await request(carol, relay.url, id, 'a friend of Bob', 'not-a-code')
    const carolPk = await carol.getPublicKey()

    const s = await until(g, (s) => s.joinRequests.length === 2)
    expect(who(s)).toEqual([bob.signer.publicKey, carolPk].sort())
    const c = s.joinRequests.find((r) => r.pubkey === carolPk)!
    expect(c).toMatchObject({ reason: 'a friend of Bob', code: 'not-a-code' })
    expect(c.event.id).toBe(carolRequest.id)
    expect(g.joinRequests()).toBe(s.joinRequests)

    // Approve: a 9000 naming Bob; his state moves from pending to member without a reload.
    await g.admin.putUser(bob.signer.publicKey)
    await until(b, (s) => s.membership.status === 'member')
    await until(g, (s) => s.joinRequests.length === 1)
    expect(who(g.snapshot())).toEqual([carolPk])

    // Dismiss is local: nothing is sent, Carol stays pending on the relay, and it is remembered.
    await g.admin.dismissJoinRequest(carolPk)
    expect(g.joinRequests()).toEqual([])
    expect(relay.state(id)?.members).not.toContain(carolPk)
    await admin.groups.idle() // the requests it received are in the store
    await admin.close()

    const again = client({ signer: adminSigner, store: SqliteEventStore.open(path) })
    await again.groups.ready
    const g2 = again.groups.group(code)!
    const dave = LocalSigner.generate()
    await request(dave, relay.url, id, 'me too', 'x')
    // Dave's request arriving shows the requests were fetched; Carol's stays dismissed.
    const after = await until(g2, (s) => s.joinRequests.length > 0)
    expect(who(after)).toEqual([await dave.getPublicKey()])

    // A newer request from Carol shows again.
    await new Promise((r) => setTimeout(r, 1100)) // a later created_at second for her new 9021
    await request(carol, relay.url, id, 'asking again', 'x')
    const back = await until(g2, (s) => s.joinRequests.some((r) => r.pubkey === carolPk))
    expect(back.joinRequests.find((r) => r.pubkey === carolPk)?.reason).toBe('asking again')
  })

  it('an admin opening the group later gets requests older than the timeline window; members get none of it', async () => {
    const { relay, adminSigner, code } = await closedGroup()
    const admin = client({ signer: adminSigner })
    const g = await admin.groups.join(code)
    await until(g, (s) => s.membership.status === 'member' && s.admins !== undefined)
    const eve = client()
    await eve.groups.join(code)
    await until(g, (s) => s.joinRequests.length === 1)
    // 120 messages push the request out of a new client's 100-event timeline window: the newest 100
    // fill one second of their own, so the window's oldest second (which a backfill completes) holds
    // nothing else.
    const base = Math.floor(Date.now() / 1000) + 1
    const chatter = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        adminSigner.signEvent({
          kind: 9,
          created_at: i < 20 ? base : base + 1,
          tags: [['h', 'club']],
          content: `m${i}`,
        }),
      ),
    )
    const sent = await Promise.all(chatter.map((e) => admin.pool.publish([relay.url], e)))
    expect(sent.every(([r]) => r?.ok)).toBe(true)

    const fresh = client({ signer: LocalSigner.fromSecret(adminSigner.nsec()) })
    const f = await fresh.groups.join(code)
    const s = await until(f, (s) => s.joinRequests.length === 1)
    expect(s.joinRequests[0]?.pubkey).toBe(eve.signer.publicKey)
    expect(s.messages.length).toBeLessThanOrEqual(101)

    // A member who is not an admin does not fetch others' requests.
    const mo = client()
    const m = await mo.groups.join(code)
    await g.admin.putUser(mo.signer.publicKey)
    await until(m, (s) => s.membership.status === 'member' && !s.loading && s.admins !== undefined)
    expect(m.isAdmin(mo.signer.publicKey)).toBe(false)
    expect(m.joinRequests()).toEqual([])
  }, 60_000)
})
