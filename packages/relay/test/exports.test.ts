import { expect, it } from 'vitest'
import * as relay from '../src/index'

it('pins the public exports of @roost/relay', () => {
  expect(Object.keys(relay).sort()).toEqual([
    'CONTENT_SECURITY_POLICY',
    'LIMITS',
    'MissingPackageError',
    'PROFILES',
    'RelayError',
    'RelayOptionError',
    'contentSecurityPolicy',
    'isRelayProfile',
    'localCertificate',
    'startRelay',
    'trustHint',
  ])
})
