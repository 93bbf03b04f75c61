import { describe, expect, it } from 'vitest'
import * as client from '../src'
import * as sqlite from '../src/sqlite'

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
