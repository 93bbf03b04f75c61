/**
 * `created_at` for the next publish at one's own coordinate (decision e):
 * `max(now, max fetched created_at for that d tag + 1)`, so the new version always replaces every
 * version a relay holds, and two publishes in one second still increase. Pass only the versions of
 * one's own `d` tag: another device's clock never moves ours.
 *
 * @example
 * createdAtFor(1700001200, [1700001000, 1700001500]) // 1700001501
 */
export function createdAtFor(nowSeconds: number, fetchedCreatedAts: Iterable<number>): number {
  let max = -1
  for (const c of fetchedCreatedAts) if (c > max) max = c
  const now = Math.floor(nowSeconds)
  return max >= now ? max + 1 : now
}
