import { kinds } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { KINDS, MODERATION_KINDS, STATE_KINDS } from '../src/index'

describe('KINDS', () => {
  it('match the numbers of NIP-29, NIP-51, NIP-22, NIP-09, NIP-98, Blossom and nostr-tools', () => {
    expect(KINDS).toEqual({
      deletion: 5,
      chat: 9,
      note: 1,
      thread: 11,
      comment: 1111,
      reaction: 7,
      putUser: 9000,
      removeUser: 9001,
      editMetadata: 9002,
      deleteEvent: 9005,
      createGroup: 9007,
      deleteGroup: 9008,
      createInvite: 9009,
      pin: 9010,
      joinRequest: 9021,
      leaveRequest: 9022,
      report: 1984,
      metadata: 39000,
      admins: 39001,
      members: 39002,
      roles: 39003,
      participants: 39004,
      pins: 39005,
      groupList: 10009,
      blossomAuth: 24242,
      httpAuth: 27235,
    })
    expect(KINDS.chat).toBe(kinds.ChatMessage)
    expect(KINDS.groupList).toBe(kinds.SimpleGroupList)
    expect(KINDS.comment).toBe(kinds.Comment)
    expect(KINDS.deletion).toBe(kinds.EventDeletion)
    expect(KINDS.httpAuth).toBe(kinds.HTTPAuth)
    expect(KINDS.report).toBe(kinds.Report)
  })

  it('list the state kinds 39000–39005 and the moderation kinds', () => {
    expect(STATE_KINDS).toEqual([39000, 39001, 39002, 39003, 39004, 39005])
    expect(MODERATION_KINDS).toEqual([9000, 9001, 9002, 9005, 9007, 9008, 9009, 9010])
  })
})
