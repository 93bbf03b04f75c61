import type { Filter, NostrEvent } from 'nostr-tools'
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import { rolesFromLists } from '../../src/model/browse-roles'
import { closedBy, loadReports, type ReportItem } from '../../src/model/reports'

const relaySk = generateSecretKey()
const relayKey = getPublicKey(relaySk)
const me = getPublicKey(generateSecretKey())
const other = getPublicKey(generateSecretKey())
const sign = (kind: number, tags: string[][], at = 100, sk = relaySk, content = '') =>
  finalizeEvent({ kind, tags, created_at: at, content }, sk)

describe('what the relay’s lists say the user is (Browse, the welcome page)', () => {
  it('admin from 39001, member from 39002, the newest list deciding, nothing where neither names me', () => {
    const events = [
      sign(39001, [
        ['d', 'design'],
        ['p', me, 'admin'],
      ]),
      sign(39002, [
        ['d', 'design'],
        ['p', me],
      ]),
      sign(39002, [
        ['d', 'general'],
        ['p', me],
        ['p', other],
      ]),
      sign(
        39001,
        [
          ['d', 'old'],
          ['p', me, 'admin'],
        ],
        100,
      ),
      sign(
        39001,
        [
          ['d', 'old'],
          ['p', other, 'admin'],
        ],
        101,
      ),
      sign(39002, [
        ['d', 'other'],
        ['p', other],
      ]),
      // A 39001 entry with only a label role is no admin, but a member.
      sign(39001, [
        ['d', 'club'],
        ['p', me, 'member'],
      ]),
    ]
    expect(Object.fromEntries(rolesFromLists(events, me, relayKey))).toEqual({
      design: 'admin',
      general: 'member',
      club: 'member',
    })
  })

  it('ignores lists signed by anyone but the relay key', () => {
    const forged = sign(
      39001,
      [
        ['d', 'design'],
        ['p', me, 'admin'],
      ],
      100,
      generateSecretKey(),
    )
    expect(rolesFromLists([forged], me, relayKey).size).toBe(0)
  })
})

describe('reports for the admins', () => {
  const reporterSk = generateSecretKey()
  const message = sign(9, [['h', 'club']], 50, generateSecretKey(), 'cheap pills')
  const onMessage = sign(
    1984,
    [
      ['h', 'club'],
      ['e', message.id, 'spam'],
      ['p', message.pubkey],
    ],
    60,
    reporterSk,
    'ads',
  )
  const onPerson = sign(
    1984,
    [
      ['h', 'club'],
      ['p', message.pubkey, 'impersonation'],
    ],
    70,
    reporterSk,
  )
  const elsewhere = sign(
    1984,
    [
      ['h', 'other'],
      ['p', message.pubkey, 'spam'],
    ],
    80,
    reporterSk,
  )

  it('reads the group’s reports newest first, with the message each names from the same group', async () => {
    const asked: Filter[][] = []
    const fetch = async (filters: Filter[]): Promise<NostrEvent[]> => {
      asked.push(filters)
      return filters[0]?.kinds ? [onMessage, onPerson, elsewhere, onMessage] : [message]
    }
    const list = await loadReports(fetch, 'club')
    expect(list.map((r) => r.id)).toEqual([onPerson.id, onMessage.id])
    expect(list[1]).toMatchObject({
      type: 'spam',
      reason: 'ads',
      eventId: message.id,
      message: { content: 'cheap pills' },
    })
    expect(list[0]?.message).toBeUndefined()
    expect(asked[1]).toEqual([{ ids: [message.id], '#h': ['club'] }])
  })

  it('an action closes the report and every other one it answers', () => {
    const r = (id: string, pubkey: string, eventId?: string): ReportItem => ({
      id,
      reporter: other,
      type: 'spam',
      reason: '',
      createdAt: 1,
      pubkey,
      ...(eventId ? { eventId } : {}),
    })
    const open = [r('a', 'x', 'm1'), r('b', 'x', 'm1'), r('c', 'x'), r('d', 'y', 'm2')]
    expect(closedBy(open[0]!, 'delete', open)).toEqual(['a', 'b'])
    expect(closedBy(open[0]!, 'remove', open)).toEqual(['a', 'b', 'c'])
    expect(closedBy(open[0]!, 'dismiss', open)).toEqual(['a'])
  })
})
