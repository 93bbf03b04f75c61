import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { MemoryEventStore } from '../src'
import { keepsGroup, LIST_RACE_SECONDS } from '../src/groups/list-merge'
import { SqliteEventStore } from '../src/sqlite'
import { groupListMergeContract } from './group-list-merge.contract'

const dir = mkdtempSync(join(tmpdir(), 'roost-list-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let n = 0

describe('10009 three-way merge (decision 13)', () => {
  it('the rule, case by case', () => {
    const never = undefined
    // in both: kept; in neither: gone
    expect(keepsGroup({ base: true, local: true, remote: true }, 100, never)).toBe(true)
    expect(keepsGroup({ base: true, local: false, remote: false }, 100, never)).toBe(false)
    // removed elsewhere since the base: removed here
    expect(keepsGroup({ base: true, local: true, remote: false }, 100, never)).toBe(false)
    // added here since the base: kept
    expect(keepsGroup({ base: false, local: true, remote: false }, 100, never)).toBe(true)
    // added elsewhere: kept; removed here since the base: stays removed
    expect(keepsGroup({ base: false, local: false, remote: true }, 100, never)).toBe(true)
    expect(keepsGroup({ base: true, local: false, remote: true }, 100, never)).toBe(false)
    // our join not yet at a relay, or too recent for the other list to know: kept
    const join = { op: 'add' as const, at: 100, synced: true }
    expect(keepsGroup({ base: true, local: true, remote: false }, 100 + LIST_RACE_SECONDS, join)).toBe(true)
    expect(keepsGroup({ base: true, local: true, remote: false }, 101 + LIST_RACE_SECONDS, join)).toBe(false)
    expect(keepsGroup({ base: true, local: true, remote: false }, 10_000, { ...join, synced: false })).toBe(
      true,
    )
    // our leave: a list not newer than it does not bring the group back; a newer one (a join elsewhere) does
    const leave = { op: 'remove' as const, at: 100, synced: true }
    expect(keepsGroup({ base: false, local: false, remote: true }, 100, leave)).toBe(false)
    expect(keepsGroup({ base: false, local: false, remote: true }, 101, leave)).toBe(true)
    // a join elsewhere concurrent with a leave here that no relay has yet: kept (decision 13)
    expect(keepsGroup({ base: false, local: false, remote: true }, 10_000, { ...leave, synced: false })).toBe(
      true,
    )
    // the base had it and our leave is not at a relay yet: the other list just has not seen it
    expect(keepsGroup({ base: true, local: false, remote: true }, 10_000, { ...leave, synced: false })).toBe(
      false,
    )
  })
})

groupListMergeContract('memory', async () => new MemoryEventStore(), 60)
groupListMergeContract('SQLite', async () => SqliteEventStore.open(join(dir, `d${n++}.db`)), 20)
