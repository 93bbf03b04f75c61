import { join } from 'node:path'
import type { RelayProfile } from '@roost/relay'
import { afterEach, describe, expect, it } from 'vitest'
import { startFaultProxy } from '../../../test/support/fault-proxy'
import { type Group, type GroupSnapshot, LocalSigner } from '../src'
import { SqliteEventStore } from '../src/sqlite'
import { Harness, until as untilWithin } from './helpers'

const h = new Harness()
afterEach(() => h.close())

const PATIENCE = 15_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)
/** The requester's device clock runs this far ahead of the relay's (well inside every future window). */
const AHEAD = 5
const ahead = () => Math.floor(Date.now() / 1000) + AHEAD

const PROFILES: RelayProfile[] = ['roost', 'strict', 'relay29', 'groups_relay', 'zooid', 'pyramid']
type Path = 'live' | 'reconnect' | 'restart'

/**
 * Bob, whose clock runs ahead, asks to join a closed group (queued as pending, or refused where a
 * code is required); the admin approves him with a 9000 while he listens, while his link is cut,
 * or while his app is closed. He learns it from the relay alone, then his messages are accepted.
 * A private group refuses him its REQ until then: he learns it from the 9000 naming him.
 */
async function approval(profile: RelayProfile, path: Path, hidden: 'closed' | 'private'): Promise<void> {
  // Bob reaches the relay through a fault proxy, the admin through another (AUTH names each URL).
  let target = ''
  const proxy = await startFaultProxy(() => target)
  const direct = await startFaultProxy(() => target)
  h.defer(() => proxy.close())
  h.defer(() => direct.close())
  const relay = await h.relay({ profile, urls: [proxy.url, direct.url] })
  target = relay.url
  const adminSigner = LocalSigner.generate()
  const id = await relay.createGroup({
    name: 'Club',
    closed: true,
    private: hidden === 'private',
    admins: [await adminSigner.getPublicKey()],
  })
  const opts = { publishTimeout: PATIENCE, eoseTimeout: PATIENCE }
  const admin = h.roost({ signer: adminSigner, pool: opts })
  // pyramid checks the code before membership, even for the group's own admin
  const a = await admin.groups.join(`${direct.url}'${id}`, { code: await relay.createInvite(id) })
  await until(a, (s) => s.membership.status === 'member')

  const bobSigner = LocalSigner.generate()
  const bobPk = await bobSigner.getPublicKey()
  const path_ = join(h.tmp(), 'bob.db')
  const code = `${proxy.url}'${id}`
  const bob = h.roost({ signer: bobSigner, clock: ahead, store: SqliteEventStore.open(path_), pool: opts })
  let b = await bob.groups.join(code)
  await until(b, (s) => s.membership.status === 'pending' || s.membership.status === 'refused')
  expect(relay.state(id)?.members).not.toContain(bobPk)

  if (path === 'reconnect') {
    proxy.refuse()
    proxy.cut()
  }
  if (path === 'restart') {
    await bob.groups.idle()
    await bob.close()
  }
  await a.admin.putUser(bobPk)
  expect(relay.state(id)?.members).toContain(bobPk)
  if (path === 'reconnect') proxy.refuse(0)
  if (path === 'restart') {
    const again = h.roost({
      signer: bobSigner,
      clock: ahead,
      store: SqliteEventStore.open(path_),
      pool: opts,
    })
    await again.groups.ready
    b = again.groups.group(code)!
  }

  await until(b, (s) => s.membership.status === 'member')
  const sent = await b.sendMessage(`hello from ${profile}`)
  await until(a, (s) => s.messages.some((m) => m.id === sent.id))
}

describe('membership from the relay’s events, whatever our clock says', () => {
  for (const profile of PROFILES) {
    for (const path of ['live', 'reconnect', 'restart'] as const) {
      it(`${profile}: an approval reaches a requester ${AHEAD} s ahead (${path}), then their sends are accepted`, () =>
        approval(profile, path, 'closed'))
      it(`${profile}: an approval in a private group reaches its requester (${path}), then their sends are accepted`, () =>
        approval(profile, path, 'private'))
    }
  }
})
