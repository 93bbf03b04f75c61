import { IndexedDbEventStore } from '../src/store'
import { groupListMergeContract } from './group-list-merge.contract'

const run = `${Date.now()}`
let n = 0

// The leave rules of the 10009 on the store the web client keeps in the browser.
groupListMergeContract('IndexedDB', () => IndexedDbEventStore.open(`roost-list-${run}-${n++}`), 20)
