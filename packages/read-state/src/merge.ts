import { type Contexts, emptyContexts } from './blob'

/**
 * Joins context maps: per context the maximum timestamp (a grow-only max-register CvRDT; the
 * join is commutative, associative and idempotent, `{}` is its identity). Event `created_at`
 * plays no part: a newer event carrying an older value never lowers anything.
 *
 * @example
 * mergeContexts({ a: 10, b: 5 }, { a: 20 }) // { a: 20, b: 5 }
 */
export function mergeContexts(...maps: readonly Contexts[]): Record<string, number> {
  const out = emptyContexts()
  for (const map of maps) {
    for (const key of Object.keys(map)) {
      const value = map[key]!
      const current = out[key]
      if (current === undefined || value > current) out[key] = value
    }
  }
  return out
}

/**
 * `true` when both maps hold exactly the same keys and values.
 *
 * @example
 * sameContexts({ a: 1 }, { a: 1 }) // true
 */
export function sameContexts(a: Contexts, b: Contexts): boolean {
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  for (const key of ka) if (b[key] !== a[key]) return false
  return true
}
