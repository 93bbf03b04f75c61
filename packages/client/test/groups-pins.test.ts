import { join } from 'node:path'
import { afterEach } from 'vitest'
import { type EventStore, MemoryEventStore } from '../src'
import { SqliteEventStore } from '../src/sqlite'
import { Harness } from './helpers'
import { pinsContract } from './pins.contract'

const h = new Harness()
afterEach(() => h.close())
const PATIENCE = 15_000
const relay = async () => (await h.relay({ profile: 'roost' })).url
const roost = (store: EventStore) =>
  h.roost({ store, pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })

pinsContract('the memory store', { relay, store: async () => new MemoryEventStore(), roost })
let n = 0
pinsContract('SQLite', {
  relay,
  store: async () => SqliteEventStore.open(join(h.tmp(), `pins-${n++}.db`)),
  roost,
})
