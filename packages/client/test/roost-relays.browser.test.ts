import { KINDS } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { afterEach, describe, expect, inject, it } from 'vitest'
import { createRoost, LocalSigner, type ReadStateSync, type Roost } from '../src'
import { IndexedDbEventStore } from '../src/store'

/** The NIP-65 (kind 10002) tests of roost-relays.test.ts, on IndexedDB in Chromium. */
const relays = inject('browserRelays')
const PATIENCE = 15_000
const run = `${Date.now()}`
let n = 0
const open: Roost[] = []
afterEach(async () => {
  for (const r of open.splice(0)) await r.close()
})

async function roost(opts: Parameters<typeof createRoost>[0]): Promise<Roost> {
  const store = await IndexedDbEventStore.open(`roost-nip65-${run}-${n++}`)
  const r = createRoost({ ...opts, store })
  open.push(r)
  return r
}

async function newest(
  r: Roost,
  relay: string,
  kind: number,
  author: string,
): Promise<NostrEvent | undefined> {
  const events = await r.pool.fetch([relay], [{ kinds: [kind], authors: [author] }])
  return events.sort((a, b) => b.created_at - a.created_at)[0]
}

const listed = (e: NostrEvent | undefined) =>
  (e?.tags ?? []).filter((t) => t[0] === 'group').map((t) => `${t[2]}'${t[1]}`)

describe('NIP-65 (kind 10002) on IndexedDB', () => {
  it('a user’s 10002 on the configured relay moves the 10009 and read state to its write relays', async () => {
    const code = `${relays.groups}'${relays.groupId}`
    const signer = LocalSigner.generate()
    const me = await signer.getPublicKey()
    // published earlier by another client of the user's
    const setup = await roost({
      signer: LocalSigner.fromSecret(signer.nsec()),
      readState: false,
      nip65: false,
    })
    const list = await signer.signEvent({
      kind: 10002,
      created_at: Math.floor(Date.now() / 1000) - 60,
      tags: [['r', relays.outbox]],
      content: '',
    })
    await setup.pool.publish([relays.configured], list)

    const phone = await roost({
      signer,
      relays: [relays.configured],
      readState: { debounceMs: 20, maxWaitMs: 100 },
    })
    const deadline = Date.now() + PATIENCE
    while (!phone.groups.accountRelays().write.includes(relays.outbox)) {
      if (Date.now() > deadline) throw new Error('the 10002 was never followed')
      await new Promise((r) => setTimeout(r, 20))
    }
    const g = await phone.groups.join(code)
    g.markRead(Math.floor(Date.now() / 1000))
    await (phone.readState as ReadStateSync).flush()
    await phone.groups.idle()
    expect(listed(await newest(phone, relays.outbox, KINDS.groupList, me))).toEqual([code])
    expect(await newest(phone, relays.outbox, 30078, me)).toBeDefined()
    expect(await newest(phone, relays.configured, KINDS.groupList, me)).toBeUndefined()
  })

  it('publishRelayList() writes a 10002 for a user without one and switches to it', async () => {
    const signer = LocalSigner.generate()
    const me = await signer.getPublicKey()
    const phone = await roost({ signer, relays: [relays.configured], readState: false })
    const results = await phone.publishRelayList({
      read: [relays.configured, relays.added],
      write: [relays.added],
    })
    expect(results.some((r) => r.ok)).toBe(true)
    const list = await newest(phone, relays.configured, 10002, me)
    expect(list?.tags).toEqual([
      ['r', relays.configured, 'read'],
      ['r', relays.added],
    ])
    expect(phone.groups.accountRelays()).toEqual({
      read: [relays.configured, relays.added],
      write: [relays.added],
    })
  })
})
