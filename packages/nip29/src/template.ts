import type { EventTemplate } from 'nostr-tools'
import { InvalidArgumentError } from './errors'

/** Options every group builder takes. @example { previous: window.previousTag(me), createdAt: now } */
export interface BuilderOptions {
  /**
   * Timeline references: the tag from {@link TimelineWindow.previousTag} (`['previous', …]`) or
   * its values. Added as one `previous` tag, only when there is at least one value.
   */
  previous?: readonly string[]
  /** Unix seconds; defaults to now. */
  createdAt?: number
}

/** Options of the moderation builders (kinds 9000–9010). @example { reason: 'spam', previous } */
export interface ModerationOptions extends BuilderOptions {
  /** Why; goes into `content`, which NIP-29 leaves free for a reason. */
  reason?: string
}

/** The values of a `previous` option, with a leading `'previous'` tag name stripped. */
export function previousValues(previous: readonly string[] | undefined): string[] {
  if (previous === undefined) return []
  if (!Array.isArray(previous) || !previous.every((v) => typeof v === 'string')) {
    throw new InvalidArgumentError('previous', 'previous must be the previous tag or an array of id prefixes')
  }
  const values = previous[0] === 'previous' ? previous.slice(1) : previous.slice()
  return values.filter((v) => v !== '')
}

/** Unix seconds now (the one clock read in this package; every builder takes `createdAt` instead). */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000)
}

/**
 * Assembles a group event template: the `h` tag first, then `tags`, then one `previous` tag when
 * `opts.previous` has values.
 */
export function groupTemplate(
  kind: number,
  id: string,
  content: string,
  tags: string[][],
  opts: BuilderOptions | undefined,
): EventTemplate {
  if (opts !== undefined && (typeof opts !== 'object' || opts === null)) {
    throw new InvalidArgumentError('opts', 'options must be an object')
  }
  if (typeof content !== 'string') throw new InvalidArgumentError('content', 'content must be a string')
  const createdAt = opts?.createdAt ?? nowSeconds()
  if (!Number.isSafeInteger(createdAt) || createdAt < 0) {
    throw new InvalidArgumentError('createdAt', 'createdAt must be a non-negative integer (unix seconds)')
  }
  const all: string[][] = [['h', id], ...tags]
  const previous = previousValues(opts?.previous)
  if (previous.length > 0) all.push(['previous', ...previous])
  return { kind, content, tags: all, created_at: createdAt }
}
