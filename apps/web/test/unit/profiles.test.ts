import { LocalSigner, MemoryEventStore, RelayPool } from '@roost/client'
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools'
import { afterEach, describe, expect, test } from 'vitest'
import { ProfileBook, SAVED_PROFILES } from '../../src/model/profiles'

const closers: (() => void)[] = []
afterEach(() => {
  for (const c of closers.splice(0)) c()
})

/** A book with no relays to ask: what it knows comes from the store and what it is handed. */
function book(store: MemoryEventStore): ProfileBook {
  const pool = new RelayPool({ signer: LocalSigner.generate() })
  const b = new ProfileBook(
    pool,
    store,
    () => [],
    () => {},
  )
  closers.push(() => {
    b.close()
    pool.close()
  })
  return b
}

function profile(sk: Uint8Array, content: object, at = Math.floor(Date.now() / 1000)) {
  return finalizeEvent({ kind: 0, created_at: at, tags: [], content: JSON.stringify(content) }, sk)
}

describe('the profiles a start begins with', () => {
  test('what one start received, the next has as soon as it restores, before anyone is asked for', async () => {
    const store = new MemoryEventStore()
    const wren = generateSecretKey()
    const basil = generateSecretKey()
    const first = book(store)
    first.ingest(profile(wren, { name: 'Wren', picture: 'https://example.com/w.png', about: 'gardener' }))
    first.ingest(profile(basil, { display_name: 'Basil' }))
    first.close()
    await expect.poll(() => store.getValue(SAVED_PROFILES)).toHaveLength(2)

    const next = book(store)
    await next.restore()
    expect(next.changes).toBe(1)
    expect(next.get(getPublicKey(wren))).toEqual({
      name: 'Wren',
      picture: 'https://example.com/w.png',
      about: 'gardener',
    })
    expect(next.get(getPublicKey(basil))?.name).toBe('Basil')
  })

  test('a newer kind 0 wins over the restored one, an older does not, and the newest is kept next', async () => {
    const store = new MemoryEventStore()
    const wren = generateSecretKey()
    const at = Math.floor(Date.now() / 1000) - 100
    const first = book(store)
    first.ingest(profile(wren, { name: 'Wren' }, at))
    first.close()

    const second = book(store)
    await second.restore()
    second.ingest(profile(wren, { name: 'Old Wren' }, at - 10))
    expect(second.get(getPublicKey(wren))?.name).toBe('Wren')
    second.ingest(profile(wren, { name: 'Wren Again' }, at + 10))
    expect(second.get(getPublicKey(wren))?.name).toBe('Wren Again')
    second.close()

    const third = book(store)
    await third.restore()
    expect(third.get(getPublicKey(wren))?.name).toBe('Wren Again')
  })

  test('a stored value that is not a list of profiles is ignored', async () => {
    const store = new MemoryEventStore()
    const pk = getPublicKey(generateSecretKey())
    await store.setValue(SAVED_PROFILES, [
      { pubkey: 'not a key', at: 1, name: 'X' },
      { pubkey: pk, at: 'soon', name: 'Y' },
      { pubkey: pk, at: 5, name: 7 },
      null,
      { pubkey: pk, at: 5, name: 'Kept' },
    ])
    const b = book(store)
    await b.restore()
    expect(b.get(pk)).toEqual({ name: 'Kept' })
    await store.setValue(SAVED_PROFILES, { pubkey: pk })
    const c = book(store)
    await c.restore()
    expect(c.changes).toBe(0)
  })
})
