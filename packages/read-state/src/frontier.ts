import type { Contexts } from './blob'
import { contextKind } from './context'

/**
 * Resolves the parent channel context of a `thread:`/`msg:` key from the event graph (e.g. the
 * root's `h` tag → the group's GroupKey string), or `undefined` when the event is unknown.
 *
 * @example
 * const parentOf: ParentResolver = (ctx) => groupKeyOfRoot.get(contextTarget(ctx) ?? '')
 */
export type ParentResolver = (ctx: string) => string | undefined

/**
 * The effective read frontier of a context: `max(merged[ctx], effective(parent(ctx)))`. Only
 * `thread:` and `msg:` keys (well-formed) have a parent; channels and opaque keys have none. An
 * unresolvable parent degrades to the context's own value. `undefined` means unknown (unread).
 *
 * @example
 * effective(`thread:${x}`, { [`thread:${x}`]: 100, ch: 150 }, () => 'ch') // 150
 */
export function effective(ctx: string, merged: Contexts, parentOf?: ParentResolver): number | undefined {
  let best = merged[ctx]
  const seen = new Set<string>([ctx])
  let current = ctx
  while (parentOf && (contextKind(current) === 'thread' || contextKind(current) === 'msg')) {
    const parent = parentOf(current)
    if (parent === undefined || seen.has(parent)) break
    seen.add(parent)
    const value = merged[parent]
    if (value !== undefined && (best === undefined || value > best)) best = value
    current = parent
  }
  return best
}

/**
 * The frontier of a reply inside a known thread (decision j folds in the thread):
 * `max(merged[msg:reply], merged[thread:root], merged[channel])`.
 *
 * @example
 * replyFrontier({ [`msg:${r}`]: 90, [`thread:${t}`]: 200, ch: 50 }, { channel: 'ch', root: t, id: r }) // 200
 */
export function replyFrontier(
  merged: Contexts,
  reply: { channel?: string; root: string; id: string },
): number | undefined {
  return maxDefined(
    merged[`msg:${reply.id}`],
    merged[`thread:${reply.root}`],
    reply.channel === undefined ? undefined : merged[reply.channel],
  )
}

/**
 * An event is unread iff its `created_at` is after the frontier; an unknown frontier is unread,
 * equality is read ("at or before").
 *
 * @example
 * isUnread(150, 150) // false
 */
export function isUnread(createdAt: number, frontier: number | undefined): boolean {
  return frontier === undefined || createdAt > frontier
}

/**
 * The largest defined number, or `undefined`.
 *
 * @example
 * maxDefined(undefined, 3, 2) // 3
 */
export function maxDefined(...values: (number | undefined)[]): number | undefined {
  let best: number | undefined
  for (const v of values) if (v !== undefined && (best === undefined || v > best)) best = v
  return best
}
