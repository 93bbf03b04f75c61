import { describe, expect, it } from 'vitest'
import {
  diffDeclarationExports,
  readSnapshot,
  sourceDeclarationExports,
} from '../scripts/declaration-exports.mjs'

// The types an entry point exports (interfaces, type aliases, classes, functions, with their kind)
// against test/consumer/declarations.json: renaming `GroupSnapshot` or turning an interface into a
// class shows here. After an intended API change, `node scripts/declaration-exports.mjs --update`.
describe('the committed snapshot of the declaration exports', () => {
  it('matches what the sources export, type by type', { timeout: 120_000 }, () => {
    const diffs: string[] = diffDeclarationExports(readSnapshot(), sourceDeclarationExports())
    expect(diffs, 'run `node scripts/declaration-exports.mjs --update` after an intended API change').toEqual(
      [],
    )
  })
})
