import { describe, expect, it } from 'vitest'
import * as react from '../src'

// The public surface of @roost/react. A change here is an API change: update the README too.
describe('@roost/react exports', () => {
  it('the hooks, the provider and its error', () => {
    expect(Object.keys(react).sort()).toEqual([
      'MissingProviderError',
      'RoostContext',
      'RoostProvider',
      'useGroup',
      'useGroupHandle',
      'useGroups',
      'usePageVisible',
      'useProfile',
      'useRoost',
      'useSnapshot',
      'useUnread',
    ])
  })
})
