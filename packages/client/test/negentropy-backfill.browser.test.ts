import { inject } from 'vitest'
import { IndexedDbEventStore } from '../src/store'
import { negentropyBackfillContract } from './negentropy-backfill.contract'

// The NIP-77 backfill over a real relay on the store the web client keeps in the browser.
const relays = inject('browserRelays')
const run = `${Date.now()}`
let n = 0

negentropyBackfillContract('IndexedDbEventStore', {
  relay: async () => relays.groups,
  store: () => IndexedDbEventStore.open(`roost-negentropy-${run}-${n++}`),
})
