import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools'
import { describe, expect, test } from 'vitest'
import { browseOrder } from '../../src/model/browse-order'
import { originOf } from '../../src/model/group-origins'
import type { BrowseEntry } from '../../src/model/types'

const relaySk = generateSecretKey()
const relayKey = getPublicKey(relaySk)
const strangerSk = generateSecretKey()

const create = (sk: Uint8Array, id: string, at: number) =>
  finalizeEvent({ kind: 9007, created_at: at, content: '', tags: [['h', id]] }, sk)
const members = (sk: Uint8Array, id: string, n: number) =>
  finalizeEvent(
    {
      kind: 39002,
      created_at: 100,
      content: '',
      tags: [['d', id], ...Array.from({ length: n }, () => ['p', getPublicKey(generateSecretKey())])],
    },
    sk,
  )

describe('originOf', () => {
  test('a 9007 signed by the relay key: made by the operator, its time vouched for', () => {
    const o = originOf(
      'general',
      [create(relaySk, 'general', 1_000), members(relaySk, 'general', 3)],
      relayKey,
      600,
    )
    expect(o).toEqual({ byOperator: true, createdAt: 1_000, members: 3 })
  })

  test('a member’s 9007: its time counts only on a relay that refuses old events', () => {
    const events = [create(strangerSk, 'copy', 10)]
    expect(originOf('copy', events, relayKey, 600)).toEqual({ byOperator: false, createdAt: 10 })
    expect(originOf('copy', events, relayKey, undefined)).toEqual({ byOperator: false, claimedAt: 10 })
  })

  test('a member list not signed by the relay, or another group’s events, count for nothing', () => {
    const o = originOf(
      'copy',
      [members(strangerSk, 'copy', 500), create(relaySk, 'general', 1), members(relaySk, 'general', 9)],
      relayKey,
      600,
    )
    expect(o).toEqual({ byOperator: false })
  })
})

describe('browseOrder', () => {
  const entry = (id: string, name: string): BrowseEntry => ({
    id,
    relay: 'ws://relay.example',
    name,
    closed: false,
    private: false,
    joined: false,
  })

  test('look-alikes in rank order with their facts; only they are asked about', async () => {
    const asked: string[][] = []
    const out = await browseOrder(
      [
        entry('copy', 'General'),
        entry('design', 'Design'),
        entry('general', 'General'),
        entry('gen', 'Genera1'),
      ],
      async (ids) => {
        asked.push(ids)
        return {
          general: { byOperator: true, createdAt: 1 },
          copy: { byOperator: false, createdAt: 5 },
          gen: { byOperator: false, createdAt: 9 },
        }
      },
    )
    expect(asked.map((ids) => [...ids].sort())).toEqual([['copy', 'gen', 'general']])
    expect(out.map((e) => e.id)).toEqual(['design', 'general', 'copy', 'gen'])
    expect(out[1]?.twin).toMatchObject({ original: true, rank: 0 })
    expect(out[2]?.twin).toMatchObject({ warning: 'operator', rank: 1 })
    expect(out[0]?.twin).toBeUndefined()
  })

  test('no look-alikes: sorted by name, and nothing is asked', async () => {
    const out = await browseOrder([entry('b', 'beta'), entry('a', 'Alpha')], async () => {
      throw new Error('not asked')
    })
    expect(out.map((e) => e.id)).toEqual(['a', 'b'])
  })
})
