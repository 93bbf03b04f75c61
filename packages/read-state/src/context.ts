import { InvalidEventIdError } from './errors'

/**
 * How a context key takes part in the hierarchy.
 *
 * @example
 * if (contextKind(key) === 'thread') rootId = contextTarget(key)
 */
export type ContextKind = 'channel' | 'thread' | 'msg' | 'opaque'

const HEX64 = /^[0-9a-f]{64}$/

/**
 * Classifies a context key: `thread:<64 lowercase hex>` is a thread, `msg:<64 lowercase hex>` a
 * message; any other key starting with `thread:` or `msg:` is opaque (merged normally, never part
 * of the hierarchy, as the spec's regex rule requires); every other key is a channel (a root).
 *
 * @example
 * contextKind(`thread:${'ab'.repeat(32)}`) // 'thread'
 * contextKind('thread:SHORT') // 'opaque'
 * contextKind("wss://groups.example.com'general") // 'channel'
 */
export function contextKind(key: string): ContextKind {
  if (key.startsWith('thread:')) return HEX64.test(key.slice(7)) ? 'thread' : 'opaque'
  if (key.startsWith('msg:')) return HEX64.test(key.slice(4)) ? 'msg' : 'opaque'
  return 'channel'
}

/**
 * The event id inside a `thread:` or `msg:` key, or `undefined` for channels and opaque keys.
 *
 * @example
 * contextTarget(`msg:${id}`) // id
 */
export function contextTarget(key: string): string | undefined {
  const kind = contextKind(key)
  if (kind === 'thread') return key.slice(7)
  if (kind === 'msg') return key.slice(4)
  return undefined
}

/**
 * The thread context key of a root event id. Throws {@link InvalidEventIdError} unless the id is
 * 64 lowercase hex (an uppercase id would silently become an opaque key).
 *
 * @example
 * threadContext(root.id) // `thread:${root.id}`
 */
export function threadContext(rootId: string): string {
  if (typeof rootId !== 'string' || !HEX64.test(rootId)) throw new InvalidEventIdError(rootId)
  return `thread:${rootId}`
}

/**
 * The per-message context key of an event id (64 lowercase hex, else {@link InvalidEventIdError}).
 *
 * @example
 * messageContext(reply.id) // `msg:${reply.id}`
 */
export function messageContext(eventId: string): string {
  if (typeof eventId !== 'string' || !HEX64.test(eventId)) throw new InvalidEventIdError(eventId)
  return `msg:${eventId}`
}
