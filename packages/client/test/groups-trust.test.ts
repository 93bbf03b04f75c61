import { GroupList, KINDS } from '@roost/nip29'
import type { Filter, NostrEvent } from 'nostr-tools'
import { afterEach, describe, expect, it } from 'vitest'
import { LocalSigner, MemoryEventStore } from '../src'
import { startFakeRelay } from './fake-relay'
import { groupCode, Harness, until } from './helpers'

const h = new Harness()
afterEach(() => h.close())

/** A relay with no NIP-11 document, whose 39000s come first from its key, then from a forger. */
async function relayWithoutNip11() {
  const relayKey = LocalSigner.generate()
  const forger = LocalSigner.generate()
  const now = Math.floor(Date.now() / 1000)
  const meta = (s: LocalSigner, id: string, name: string, at: number) =>
    s.signEvent({
      kind: KINDS.metadata,
      created_at: at,
      tags: [
        ['d', id],
        ['name', name],
      ],
      content: '',
    })
  const state: NostrEvent[] = [
    await meta(relayKey, 'real', 'Real', now - 10),
    await meta(forger, 'fake', 'Fake', now), // newer, but not the first seen
    await meta(relayKey, 'other', 'Other', now - 20),
  ]
  const matches = (f: Filter, e: NostrEvent) =>
    (!f.kinds || f.kinds.includes(e.kind)) &&
    (!f.authors || f.authors.includes(e.pubkey)) &&
    (!f['#d'] || f['#d'].includes(e.tags.find((t) => t[0] === 'd')?.[1] ?? ''))
  const fake = await startFakeRelay({
    onReq: (filters) => state.filter((e) => filters.some((f) => matches(f, e))),
  })
  h.defer(() => fake.close())
  return { fake, relayKey: await relayKey.getPublicKey(), forger: await forger.getPublicKey() }
}

describe('trusting group state without NIP-11', () => {
  it('browse() pins the first 39000’s author and lists only the groups it signed', async () => {
    const { fake, relayKey } = await relayWithoutNip11()
    const alice = h.roost({ readState: false })
    const listed = await alice.groups.browse(fake.url)
    expect(listed.map((m) => m.id).sort()).toEqual(['other', 'real'])
    expect(alice.groups.relayKey(fake.url)).toBe(relayKey)
  })

  it('a group whose key was only pinned is marked unverified; one vouched for by NIP-11 is not', async () => {
    const { fake, relayKey } = await relayWithoutNip11()
    const real = await h.relay()
    const id = await real.createGroup({ name: 'Vouched' })
    const signer = LocalSigner.generate()
    const store = new MemoryEventStore()
    const list = GroupList.empty().upsert({ id: 'real', relay: fake.url }).upsert({ id, relay: real.url })
    await store.add(await signer.signEvent(list.toTemplate(1)))
    const alice = h.roost({ signer, store, readState: false })
    await alice.groups.ready
    const pinned = alice.groups.group(`${fake.url}'real`)!
    await until(pinned, (s) => s.metadata?.name === 'Real')
    expect(pinned.snapshot().relayKey).toBe(relayKey)
    expect(pinned.snapshot().unverified).toBe(true)
    const vouched = alice.groups.group(groupCode(real, id))!
    await until(vouched, (s) => s.metadata?.name === 'Vouched')
    expect(vouched.snapshot().unverified).toBe(false)
  })
})
