import type { ForkReport } from '@roost/nip29'
import { afterEach, describe, expect, it } from 'vitest'
import type { ForkWatch, Group, GroupSnapshot } from '../src'
import { groupCode, Harness, until as untilWithin } from './helpers'

const h = new Harness()
const PATIENCE = 15_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)
afterEach(() => h.close())

/** Resolves with the first report (current or next) that satisfies `predicate`. */
function report(watch: ForkWatch, predicate: (r: ForkReport) => boolean): Promise<ForkReport> {
  return new Promise((resolve, reject) => {
    if (predicate(watch.report)) return resolve(watch.report)
    const timer = setTimeout(() => {
      stop()
      reject(new Error(`fork report not reached: ${JSON.stringify(watch.report)}`))
    }, PATIENCE)
    const stop = watch.subscribe((r) => {
      if (!predicate(r)) return
      clearTimeout(timer)
      stop()
      resolve(r)
    })
  })
}

describe('fork and migration detection through the admins’ 10009 (ForkWatch)', () => {
  it('says "also lives on", then "moved", with the evidence, and keeps the forks apart', async () => {
    const home = await h.relay()
    const other = await h.relay()
    const opts = { relays: [home.url], pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } }
    const admin = h.roost(opts)
    const bob = h.roost(opts)
    const g = await admin.groups.create(home.url, { name: 'Pizza' })
    await until(g, (s) => s.membership.status === 'member' && s.admins !== undefined)
    const id = g.key.id.value
    const b = await bob.groups.join(groupCode(home, id))
    await until(
      b,
      (s) => s.membership.status === 'member' && s.admins?.contains(admin.signer.publicKey) === true,
    )
    await g.sendMessage('on the home relay')
    await until(b, (s) => s.messages.length === 1)

    const watch = bob.groups.watchForks(b.key)
    h.defer(() => watch.close())
    // The admin's list names the group here only.
    expect((await report(watch, (r) => r.status === 'here')).elsewhere).toEqual([])

    // The admin copies the group to another relay under the same id.
    const copy = await admin.groups.create(other.url, { id, name: 'Pizza' })
    await until(copy, (s) => s.membership.status === 'member')
    await copy.sendMessage('on the other relay')
    const also = await report(watch, (r) => r.status === 'also-lives-on')
    expect(also.elsewhere).toEqual([{ relay: other.url, admins: [admin.signer.publicKey] }])
    expect(also.evidence).toHaveLength(1)
    expect(also.evidence[0]).toMatchObject({ admin: admin.signer.publicKey })
    expect(new Set(also.evidence[0]?.relays)).toEqual(new Set([home.url, other.url]))

    // The admin leaves the home relay's group: the list names only the other relay.
    await admin.groups.leave(g.key)
    const moved = await report(watch, (r) => r.status === 'moved')
    expect(moved.elsewhere.map((s) => s.relay)).toEqual([other.url])

    // Detection never merges: bob's group is still the home relay's, with its own timeline.
    expect(b.snapshot().messages.map((m) => m.content)).toEqual(['on the home relay'])
    expect(bob.groups.groups().map((x) => x.key.toString())).toEqual([b.key.toString()])

    // Following the other fork adds a second, separate group.
    const followed = await bob.groups.join(groupCode(other, id))
    await until(followed, (s) => s.messages.some((m) => m.content === 'on the other relay'))
    expect(followed.key.toString()).not.toBe(b.key.toString())
    expect(b.snapshot().messages.map((m) => m.content)).toEqual(['on the home relay'])
    expect(followed.snapshot().messages.map((m) => m.content)).toEqual(['on the other relay'])
  }, 90_000)

  it('ignores lists from people who are not admins', async () => {
    const home = await h.relay()
    const other = await h.relay()
    const opts = { relays: [home.url], pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } }
    const admin = h.roost(opts)
    const mallory = h.roost(opts)
    const g = await admin.groups.create(home.url, { name: 'Pizza' })
    await until(g, (s) => s.membership.status === 'member' && s.admins !== undefined)
    const id = g.key.id.value
    const m = await mallory.groups.join(groupCode(home, id))
    await until(m, (s) => s.membership.status === 'member')
    // A member (not an admin) makes a same-id group elsewhere and lists it.
    const fake = await mallory.groups.create(other.url, { id, name: 'Pizza' })
    await until(fake, (s) => s.membership.status === 'member')
    const watch = admin.groups.watchForks(g.key)
    h.defer(() => watch.close())
    const seen = await report(watch, (r) => r.status === 'here')
    expect(seen.evidence.map((e) => e.admin)).toEqual([admin.signer.publicKey])
    await mallory.groups.idle()
    expect(watch.report.status).toBe('here')
  }, 60_000)
})
