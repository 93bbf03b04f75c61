import { describe } from 'vitest'
import { MemoryEventStore } from '../src/store'
import { storeContract } from './store-contract'

describe('MemoryEventStore', () => {
  storeContract('MemoryEventStore', { open: async () => new MemoryEventStore() })
})
