import { groupForest } from '@roost/nip29'
import { afterEach, describe, expect, it } from 'vitest'
import { type Group, type GroupSnapshot, PublishRefusedError } from '../src'
import { Harness, until as untilWithin } from './helpers'

const h = new Harness()
const PATIENCE = 15_000
const until = (group: Group, predicate: (s: GroupSnapshot) => boolean) =>
  untilWithin(group, predicate, PATIENCE)
const client = () => h.roost({ pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })
afterEach(() => h.close())

describe('subgroups through the client (NIP-29 parent/child)', () => {
  it('creates a subgroup (9007 then 9002 with parent), keeps the links on edits, moves groups, and shows the relay refusals', async () => {
    const relay = await h.relay()
    const admin = client()
    const eng = await admin.groups.create(relay.url, { id: 'eng', name: 'Engineering' })
    const web = await admin.groups.create(relay.url, { id: 'web', name: 'Web', parent: 'eng' })
    await until(web, (s) => s.metadata?.parent === 'eng')
    await until(eng, (s) => s.metadata?.children.includes('web') === true)

    // An edit re-sends the links: renaming the parent keeps its child, renaming the child keeps its parent.
    await eng.admin.editMetadata({ name: 'Eng' })
    await web.admin.editMetadata({ name: 'Web team' })
    await until(eng, (s) => s.metadata?.name === 'Eng')
    await until(web, (s) => s.metadata?.name === 'Web team')
    expect(relay.state('web')?.parent).toBe('eng')
    expect(relay.state('eng')?.children).toEqual(['web'])

    // A cycle is the relay's to refuse, with its words.
    const cycle = eng.admin.editMetadata({ parent: 'web' })
    await expect(cycle).rejects.toBeInstanceOf(PublishRefusedError)
    await expect(cycle).rejects.toMatchObject({ relayMessage: 'restricted: would create a parent cycle' })
    await expect(web.admin.editMetadata({ parent: 'nope' })).rejects.toMatchObject({
      relayMessage: "restricted: parent group 'nope' doesn't exist",
    })

    // Someone who is not an admin of the parent cannot hang a group under it.
    const other = client()
    const own = await other.groups.create(relay.url, { id: 'own', name: 'Own' })
    await expect(own.admin.editMetadata({ parent: 'eng' })).rejects.toMatchObject({
      relayMessage: 'restricted: must be an admin of the parent group',
    })

    // Move: a third group under web, then web back to the top.
    const ops = await admin.groups.create(relay.url, { id: 'ops', name: 'Ops' })
    await ops.admin.editMetadata({ parent: 'web' })
    await until(web, (s) => s.metadata?.children.includes('ops') === true)
    await web.admin.editMetadata({ parent: undefined })
    await until(web, (s) => s.metadata !== undefined && s.metadata.parent === undefined)
    await until(eng, (s) => s.metadata?.children.length === 0)

    const forest = groupForest([eng, web, ops, own].map((g) => g.metadata!).filter((m) => m !== undefined))
    expect(forest.map((n) => [n.id, n.children.map((c) => c.id)])).toEqual([
      ['eng', []],
      ['own', []],
      ['web', ['ops']],
    ])

    // Deleting a group (9008) is for its admins; `remove` then drops it here without a 9022.
    const gone = await admin.groups.create(relay.url, { id: 'gone', name: 'Gone' })
    await expect(gone.admin.deleteGroup('done')).resolves.toMatchObject({ kind: 9008 })
    expect(relay.state('gone')?.deleted).toBe(true)
    await admin.groups.remove(gone.key)
    expect(admin.groups.groups().map((g) => g.key.id.value)).not.toContain('gone')
    expect(admin.groups.groupList().entries.map((e) => e.id)).not.toContain('gone')
  })
})
