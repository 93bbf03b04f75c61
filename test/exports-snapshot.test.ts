import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// test/consumer/exports.json is what `npm run test:consumer` checks the installed tarballs
// against; this keeps it in step with the sources, so an API change shows here first
// (`node scripts/consumer-test.mjs --update` rewrites it).
const snapshot = JSON.parse(
  readFileSync(new URL('consumer/exports.json', import.meta.url), 'utf8'),
) as Record<string, string[]>

const entries: Record<string, () => Promise<Record<string, unknown>>> = {
  '@roost/nip29': () => import('@roost/nip29'),
  '@roost/read-state': () => import('@roost/read-state'),
  '@roost/client': () => import('@roost/client'),
  '@roost/client/sqlite': () => import('@roost/client/sqlite'),
  '@roost/relay': () => import('@roost/relay'),
  '@roost/react': () => import('@roost/react'),
}

describe('the committed export snapshot of the installed packages', () => {
  it('lists every entry point', () => {
    expect(Object.keys(snapshot).sort()).toEqual(Object.keys(entries).sort())
  })

  for (const [entry, load] of Object.entries(entries)) {
    it(`${entry} exports what the snapshot says`, async () => {
      expect(Object.keys(await load()).sort()).toEqual(snapshot[entry])
    })
  }
})
