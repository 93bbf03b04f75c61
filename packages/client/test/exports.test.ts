import { describe, expect, it } from 'vitest'
import * as client from '../src'
import * as sqlite from '../src/sqlite'
import { offlineGroup } from './group-fixtures'

// The public surface of @roost/client. A change here is an API change: update the README too.
describe('@roost/client exports', () => {
  it('the root entry (browser-safe)', () => {
    expect(Object.keys(client).sort()).toEqual([
      'AuthRequiredError',
      'CallTokenError',
      'CannotSendError',
      'ClosedError',
      'DecryptError',
      'EncryptError',
      'ForkWatch',
      'Group',
      'GroupsRegistry',
      'IndexedDbEventStore',
      'InvalidBunkerUrlError',
      'InvalidPublicKeyError',
      'InvalidQueryError',
      'InvalidRelaysError',
      'InvalidSecretKeyError',
      'InvalidStoreEventError',
      'InvalidTemplateError',
      'InvalidValueError',
      'LocalSigner',
      'MemoryEventStore',
      'NegentropyError',
      'Nip07Signer',
      'Nip46Signer',
      'PublishRefusedError',
      'PublishTimeoutError',
      'RELAY_LIST_KIND',
      'ROW_KINDS',
      'ReadStateSync',
      'RelayListFollower',
      'RelayPool',
      'RelayUnreachableError',
      'SEARCH_KINDS',
      'SignerRefusedError',
      'SignerTimeoutError',
      'SignerUnavailableError',
      'SignerUnsupportedError',
      'StoreClosedError',
      'StoreOpenError',
      'Timeline',
      'UnknownGroupError',
      'UploadError',
      'backoffDelay',
      'blossomServerFor',
      'brandVerified',
      'createRoost',
      'createVerifier',
      'fetchCallToken',
      'fetchRelayInfo',
      'fetchRelays',
      'groupSubscriptionId',
      'isPreviousRejection',
      'isVerified',
      'negentropyBackfill',
      'nobleVerifier',
      'parseRelayList',
      'parseRelays',
      'publishError',
      'refetchWindow',
      'relayKeyOf',
      'relayListTemplate',
      'relayPrefix',
      'uploadBlob',
      'wasmVerifier',
      'windowFilter',
    ])
  })

  it('the Node entry', () => {
    expect(Object.keys(sqlite).sort()).toEqual(['SqliteEventStore'])
  })

  it('Group: reading and writing on the group, administering on group.admin, nothing only the registry calls', () => {
    const methods = (o: object) =>
      Object.getOwnPropertyNames(o)
        .filter((n) => n !== 'constructor')
        .sort()
    expect(methods(client.Group.prototype)).toEqual([
      'admin',
      'admins',
      'callToken',
      'canSend',
      'comment',
      'deleteEvent',
      'deleteOwn',
      'event',
      'isAdmin',
      'joinRequests',
      'loadOlder',
      'markMessageRead',
      'markRead',
      'markThreadRead',
      'members',
      'membership',
      'messages',
      'metadata',
      'metadataEvent',
      'pins',
      'postThread',
      'react',
      'relayKey',
      'reply',
      'report',
      'roles',
      'search',
      'sendMessage',
      'setPins',
      'thread',
      'threads',
      'unreact',
      'unread',
      'unreadMentions',
    ])
    const group = offlineGroup().group
    expect(Object.keys(group).sort()).toEqual(['key', 'snapshot', 'subscribe'])
    expect(methods(Object.getPrototypeOf(group.admin))).toEqual([
      'createInvite',
      'deleteGroup',
      'dismissJoinRequest',
      'editMetadata',
      'putUser',
      'removeUser',
    ])
    expect(Object.keys(group.admin)).toEqual([])
  })

  it('every typed error of the runtime carries a stable code', () => {
    const errors = [
      new client.PublishRefusedError('wss://r', 'restricted: no'),
      new client.PublishTimeoutError('wss://r', 10, 'hm'),
      new client.AuthRequiredError('wss://r', 'auth-required: x'),
      new client.RelayUnreachableError('wss://r', 'down'),
      new client.CannotSendError('not-member', 'join first'),
      new client.UnknownGroupError("wss://r'x"),
      new client.ClosedError('RelayPool'),
      new client.InvalidRelaysError('relays.write', 'expected an array of relay URLs'),
      new client.CallTokenError('refused', 'restricted: members only', 403),
      new client.NegentropyError('wss://r', 'blocked: too many records'),
    ]
    expect(errors.map((e) => e.code)).toEqual([
      'publish-refused',
      'publish-timeout',
      'auth-required',
      'relay-unreachable',
      'cannot-send',
      'unknown-group',
      'closed',
      'invalid-relays',
      'call-token',
      'negentropy',
    ])
    expect((errors[0] as client.PublishRefusedError).prefix).toBe('restricted')
    expect(errors[0]!.message).toBe('restricted: no')
  })
})
