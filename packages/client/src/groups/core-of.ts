import type { Group } from './group'
import type { GroupCore } from './group-core'

/** Each group's core, set by the core as it makes its face. */
export const cores = new WeakMap<Group, GroupCore>()

/**
 * @internal The core behind a group the registry made: for tests that hand an event to `ingest`
 * directly, as a relay's would arrive. Not exported from the package.
 */
export function coreOf(group: Group): GroupCore | undefined {
  return cores.get(group)
}
