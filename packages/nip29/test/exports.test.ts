import { describe, expect, it } from 'vitest'
import * as nip29 from '../src/index'

describe('@roost/nip29 exports', () => {
  it('pins the public runtime names (a change here is an API change)', () => {
    expect(Object.keys(nip29).sort()).toEqual([
      'AuthorizationError',
      'GroupAdmins',
      'GroupId',
      'GroupKey',
      'GroupList',
      'GroupMembers',
      'GroupMetadata',
      'GroupParticipants',
      'GroupPins',
      'GroupReference',
      'GroupRoles',
      'InvalidArgumentError',
      'InvalidEventError',
      'InvalidGroupIdError',
      'InvalidReferenceError',
      'InvalidRelayUrlError',
      'KINDS',
      'LIVEKIT_PATH',
      'MAX_PREVIOUS',
      'MAX_SEARCH_TERMS',
      'MODERATION_KINDS',
      'RoostError',
      'STATE_KINDS',
      'TimelineWindow',
      'Withdrawals',
      'authorizesBlob',
      'blossomAuthTemplate',
      'buildImeta',
      'checkBlossomAuth',
      'checkHttpAuth',
      'composeMentions',
      'contentMatches',
      'contentMentions',
      'decodeAuthHeader',
      'detectForks',
      'encodeAuthHeader',
      'foldMembership',
      'foldSearchText',
      'groupForest',
      'groupIdOf',
      'httpAuthTemplate',
      'imetaOf',
      'isHex64',
      'livekitTokenUrl',
      'membershipAfterReply',
      'mentionUri',
      'mentionsPubkey',
      'newestEvent',
      'normalizeRelayUrl',
      'parseBlobDescriptor',
      'parseContent',
      'parseImeta',
      'parseLiveKitToken',
      'pendingJoinRequests',
      'relayHttpUrl',
      'searchTerms',
      'searchWords',
      'timelineOrder',
      'tryNormalizeRelayUrl',
      'withdrawnIds',
    ])
  })

  it('resolves by package name from the workspace', async () => {
    const byName = await import('@roost/nip29')
    expect(byName.GroupId).toBe(nip29.GroupId)
  })
})
