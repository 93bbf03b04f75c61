// Types for declaration-exports.mjs, for the test that imports it.
type Snapshot = Record<string, Record<string, string>>
export const SNAPSHOT: string
export const SOURCE_ENTRIES: Record<string, string>
export function declarationExports(entries: Record<string, string>, options: object): Snapshot
export function sourceDeclarationExports(): Snapshot
export function diffDeclarationExports(expected: Snapshot, actual: Snapshot): string[]
export function readSnapshot(): Snapshot
export function writeSnapshot(snapshot: Snapshot): void
