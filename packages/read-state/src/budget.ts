import { blobOverhead, type Contexts, emptyContexts, entrySize } from './blob'
import { DEFAULT_BUDGET_BYTES, DEFAULT_HORIZON_SECONDS, MAX_BUDGET_BYTES } from './constants'
import { contextKind } from './context'
import { InvalidOptionError } from './errors'
import { effective, type ParentResolver } from './frontier'

/**
 * Options of {@link fitToBudget}.
 *
 * @example
 * fitToBudget(merged, { clientId, budget: 32_768, parentOf, advancedAt, nowSeconds })
 */
export interface BudgetOptions {
  /** The `client_id` that goes into the blob (it counts toward the size). */
  clientId: string
  /** Plaintext budget in UTF-8 bytes; default 32,768, at most 40,960 (decision h). */
  budget?: number
  /** Parent channel of `thread:`/`msg:` keys; without it no entry counts as dominated. */
  parentOf?: ParentResolver
  /** When each context last advanced (any unit, larger = more recent); unknown counts as oldest. */
  advancedAt?: Readonly<Record<string, number>>
  /** Current time in unix seconds; with it, channels older than the horizon go before recent ones. */
  nowSeconds?: number
  /** Horizon in seconds (default 7 days). */
  horizonSeconds?: number
}

/**
 * Result of {@link fitToBudget}.
 *
 * @example
 * const { contexts, evicted, bytes } = fitToBudget(merged, { clientId })
 */
export interface BudgetResult {
  /** The contexts to publish (a subset of the input, in input order). */
  contexts: Record<string, number>
  /** Keys left out, in eviction order. */
  evicted: string[]
  /** UTF-8 size of `serializeBlob({ clientId, contexts })`. */
  bytes: number
}

/**
 * Validates a budget option: an integer from 1,024 to 40,960 bytes.
 *
 * @example
 * checkBudget(undefined) // 32768
 */
export function checkBudget(budget: number | undefined): number {
  const b = budget ?? DEFAULT_BUDGET_BYTES
  if (!Number.isInteger(b) || b < 1024 || b > MAX_BUDGET_BYTES)
    throw new InvalidOptionError(
      'budget',
      `must be an integer from 1024 to ${MAX_BUDGET_BYTES} bytes, got ${b}`,
    )
  return b
}

/**
 * Trims contexts so the serialized plaintext fits the budget (decision h). When over budget it
 * drops, in order: `thread:`/`msg:` entries dominated by their channel (inert), then the least
 * recently advanced `msg:`, then `thread:`, then channels whose value is older than the horizon
 * (oldest first), and as a last resort the least recently advanced of what remains, so the result
 * always fits. Under budget nothing is dropped. Pure: the input is not modified.
 *
 * @example
 * fitToBudget(merged, { clientId, parentOf, advancedAt, nowSeconds }).contexts // publishable subset
 */
export function fitToBudget(contexts: Contexts, options: BudgetOptions): BudgetResult {
  const budget = checkBudget(options.budget)
  const keys = Object.keys(contexts)
  const overhead = blobOverhead(options.clientId)
  let sum = 0
  const sizes = new Map<string, number>()
  for (const key of keys) {
    const s = entrySize(key, contexts[key]!)
    sizes.set(key, s)
    sum += s
  }
  let count = keys.length
  const total = () => overhead + sum + Math.max(0, count - 1)
  if (total() <= budget) return { contexts: copy(contexts, keys, undefined), evicted: [], bytes: total() }

  const advancedAt = options.advancedAt ?? {}
  const horizonStart =
    options.nowSeconds === undefined
      ? undefined
      : options.nowSeconds - (options.horizonSeconds ?? DEFAULT_HORIZON_SECONDS)
  const ranked = keys.map((key) => ({ key, tier: tierOf(key, contexts, options.parentOf, horizonStart) }))
  ranked.sort((a, b) => {
    if (a.tier !== b.tier) return a.tier - b.tier
    if (a.tier === 3) return contexts[a.key]! - contexts[b.key]! || cmp(a.key, b.key)
    return (
      (advancedAt[a.key] ?? 0) - (advancedAt[b.key] ?? 0) ||
      contexts[a.key]! - contexts[b.key]! ||
      cmp(a.key, b.key)
    )
  })
  const evicted: string[] = []
  for (const { key } of ranked) {
    if (total() <= budget) break
    sum -= sizes.get(key)!
    count--
    evicted.push(key)
  }
  return { contexts: copy(contexts, keys, new Set(evicted)), evicted, bytes: total() }
}

function tierOf(
  key: string,
  contexts: Contexts,
  parentOf: ParentResolver | undefined,
  horizonStart?: number,
): number {
  const kind = contextKind(key)
  if (kind === 'thread' || kind === 'msg') {
    if (isDominated(key, contexts, parentOf)) return 0
    return kind === 'msg' ? 1 : 2
  }
  if (horizonStart !== undefined && contexts[key]! < horizonStart) return 3
  return 4
}

/**
 * `true` when a `thread:`/`msg:` entry is semantically inert: its value is at or below its
 * parent's effective frontier, so dropping it changes no frontier.
 *
 * @example
 * isDominated(`thread:${x}`, { [`thread:${x}`]: 100, ch: 150 }, () => 'ch') // true
 */
export function isDominated(key: string, contexts: Contexts, parentOf: ParentResolver | undefined): boolean {
  const value = contexts[key]
  if (value === undefined || !parentOf) return false
  const kind = contextKind(key)
  if (kind !== 'thread' && kind !== 'msg') return false
  const parent = parentOf(key)
  if (parent === undefined || parent === key) return false
  const p = effective(parent, contexts, parentOf)
  return p !== undefined && value <= p
}

function copy(contexts: Contexts, keys: string[], skip: Set<string> | undefined): Record<string, number> {
  const out = emptyContexts()
  for (const key of keys) if (!skip?.has(key)) out[key] = contexts[key]!
  return out
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
