import { afterEach, describe, expect, it } from 'vitest'
import { LocalSigner, MemoryEventStore, ReadStateSync } from '../src'
import { groupCode, Harness, until } from './helpers'

const h = new Harness()
afterEach(() => h.close())

describe('createRoost', () => {
  it('shows the store it uses, read-only: the one passed, else its in-memory default', async () => {
    const store = new MemoryEventStore()
    const given = h.roost({ store })
    expect(given.store).toBe(store)
    await given.store.setValue('app:cursor', 'abc')
    expect(await store.getValue('app:cursor')).toBe('abc')
    // @ts-expect-error read-only
    expect(() => (given.store = new MemoryEventStore())).toThrow(TypeError)
    expect(given.store).toBe(store)
  })

  it('wires read state: marking read on one device clears the badge on the other', async () => {
    const home = await h.relay()
    const groups = await h.relay({ profile: 'groups_relay' })
    const id = await groups.createGroup({ name: 'Badges' })
    const signer = LocalSigner.generate()
    const fast = { debounceMs: 20, maxWaitMs: 100 }
    const phone = h.roost({ signer, relays: [home.url], readState: fast })
    const laptop = h.roost({
      signer: LocalSigner.fromSecret(signer.nsec()),
      relays: [home.url],
      readState: fast,
    })
    expect(phone.readState).toBeInstanceOf(ReadStateSync)
    let ahead = 0 // so that 'three' is a second newer than the read mark, whatever the wall clock does
    const writer = h.roost({ readState: false, clock: () => Math.floor(Date.now() / 1000) + ahead })
    const w = await writer.groups.join(groupCode(groups, id))
    const p = await phone.groups.join(groupCode(groups, id))
    const l = await laptop.groups.join(groupCode(groups, id))
    await w.sendMessage('one')
    await w.sendMessage('two')
    await until(p, (s) => s.unread === 2)
    await until(l, (s) => s.unread === 2)

    p.markRead()
    expect(p.unread()).toBe(0)
    await (phone.readState as ReadStateSync).flush()
    await until(l, (s) => s.unread === 0) // the laptop got the phone's read-state blob

    ahead = 2
    await w.sendMessage('three')
    await until(l, (s) => s.unread === 1)
    expect(writer.readState).toBeUndefined()
    expect(w.unread()).toBe(0)
  })
})
