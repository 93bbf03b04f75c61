import { afterEach, inject } from 'vitest'
import { createRoost, LocalSigner, type Roost } from '../src'
import { IndexedDbEventStore } from '../src/store'
import { pinsContract } from './pins.contract'

// The pins over a real relay on the store the web client keeps in the browser.
const relays = inject('browserRelays')
const PATIENCE = 15_000
const run = `${Date.now()}`
let n = 0
const open: Roost[] = []
afterEach(async () => {
  for (const r of open.splice(0)) await r.close()
})

pinsContract('IndexedDB', {
  relay: async () => relays.groups,
  store: () => IndexedDbEventStore.open(`roost-pins-${run}-${n++}`),
  roost: (store) => {
    const r = createRoost({
      signer: LocalSigner.generate(),
      store,
      readState: false,
      pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE },
    })
    open.push(r)
    return r
  },
})
