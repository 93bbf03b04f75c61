/**
 * The opening shared by the files about a group this device holds and reloads: one relay, one
 * group with history, one person in it.
 */
import { finalizeEvent, generateSecretKey } from 'nostr-tools'
import { withStack } from './harness'
import { historyEvents, IMPORT_OPTIONS, publishAll } from './seed'

/**
 * The opening of a file about a group this device holds: "Garden" (id `garden`) on a relay with
 * the import settings, `count` messages of history in it, and Ada signed up and joined to it. With
 * `names`, the history's authors are that many people (message `i`, from 1, is by
 * `names[(i - 1) % names.length]`), each with a kind 0 of that name published before.
 *
 * @example
 * const {
 *   people: [ada],
 * } = withGarden(40)
 */
export function withGarden(count: number, opts: { names?: readonly string[] } = {}) {
  return withStack({
    relay: { ...IMPORT_OPTIONS },
    seed: async ({ relay }) => {
      await relay.createGroup({ id: 'garden', name: 'Garden' })
      const keys = opts.names?.map(() => generateSecretKey())
      const now = Math.floor(Date.now() / 1000)
      const profiles = (opts.names ?? []).map((name, i) =>
        finalizeEvent({ kind: 0, created_at: now, tags: [], content: JSON.stringify({ name }) }, keys![i]!),
      )
      await publishAll(relay.url, [...profiles, ...historyEvents('garden', count, keys ? { keys } : {})])
    },
    people: [{ name: 'Ada', join: ['garden'] }],
  })
}
