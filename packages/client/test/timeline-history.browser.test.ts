import { afterEach, inject } from 'vitest'
import { createRoost, type Roost } from '../src'
import { type EventStore, IndexedDbEventStore } from '../src/store'
import { type HistoryEnv, historyContract, orderContract, PATIENCE } from './timeline-history.contract'

// One order and whole history over real relays (started in Node for the browser run), on the
// store the web client keeps in the browser; a restart opens the same IndexedDB database again.
const relays = inject('browserRelays')
const run = `${Date.now()}`
let test = 0
const open: Roost[] = []
afterEach(async () => {
  for (const r of open.splice(0)) await r.close()
  test++
})

const env: HistoryEnv = {
  relay: async (ties) => (ties === 'id' ? relays.tiesById : relays.ordered),
  store: (name): Promise<EventStore> => IndexedDbEventStore.open(`roost-history-${run}-${test}-${name}`),
  roost: (store, signer, clock) => {
    const r = createRoost({
      signer,
      store,
      clock,
      readState: false,
      pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE },
    })
    open.push(r)
    return r
  },
}

orderContract('IndexedDB', env)
historyContract('IndexedDB', env)
