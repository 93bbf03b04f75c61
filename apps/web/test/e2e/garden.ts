/**
 * The opening shared by the files about a group this device holds and reloads: one relay, one
 * group with history, one person in it.
 */
import { withStack } from './harness'
import { historyEvents, IMPORT_OPTIONS, publishAll } from './seed'

/**
 * The opening of a file about a group this device holds: "Garden" (id `garden`) on a relay with
 * the import settings, `count` messages of history in it, and Ada signed up and joined to it.
 *
 * @example
 * const {
 *   people: [ada],
 * } = withGarden(40)
 */
export function withGarden(count: number) {
  return withStack({
    relay: { ...IMPORT_OPTIONS },
    seed: async ({ relay }) => {
      await relay.createGroup({ id: 'garden', name: 'Garden' })
      await publishAll(relay.url, historyEvents('garden', count))
    },
    people: [{ name: 'Ada', join: ['garden'] }],
  })
}
