import { type Contexts, emptyContexts } from './blob'
import { isDominated } from './budget'
import { contextKind } from './context'
import type { ParentResolver } from './frontier'

/**
 * The merged read state of one installation: every context's highest value seen (local marks and
 * every device's blob, never lowered), when each last advanced (for the budget's eviction order),
 * which keys advanced since the last drain, and the bound on local size (dominated children are
 * dropped once there are more than `maxLocal`; no frontier changes).
 */
export class MergedContexts {
  readonly values: Record<string, number>
  readonly advancedAt: Record<string, number>
  private count = -1
  private rescanAbove = 0
  private rootAdvanced = false
  private changed = new Set<string>()
  /** Something a persisted snapshot holds changed. */
  dirty = false

  constructor(
    private readonly clock: () => number,
    private readonly maxLocal: number,
    saved?: { contexts?: Contexts; advancedAt?: Record<string, number> },
  ) {
    this.values = Object.assign(emptyContexts(), saved?.contexts)
    this.advancedAt = Object.assign(emptyContexts(), saved?.advancedAt)
  }

  /** Raises `key` to `value`; false when it already held as much. */
  advance(key: string, value: number): boolean {
    const cur = this.values[key]
    if (cur !== undefined && value <= cur) return false
    if (cur === undefined && this.count >= 0) this.count++
    const kind = contextKind(key)
    if (kind !== 'thread' && kind !== 'msg') this.rootAdvanced = true
    this.values[key] = value
    this.advancedAt[key] = this.clock()
    this.changed.add(key)
    this.dirty = true
    return true
  }

  /** Merges a blob's contexts in (per key maximum). */
  mergeIn(contexts: Contexts): void {
    for (const key of Object.keys(contexts)) this.advance(key, contexts[key]!)
  }

  /** True when `contexts` holds a key we lack or a value above ours. */
  hasValueAbove(contexts: Contexts): boolean {
    for (const key of Object.keys(contexts)) {
      const cur = this.values[key]
      if (cur === undefined || contexts[key]! > cur) return true
    }
    return false
  }

  /** The keys that advanced since the last call. */
  drainChanged(): string[] {
    if (this.changed.size === 0) return []
    const out = [...this.changed]
    this.changed = new Set()
    return out
  }

  /** Keeps local state bounded by dropping inert (dominated) children; no frontier changes. */
  prune(parentOf: ParentResolver | undefined): void {
    if (this.count < 0) this.count = Object.keys(this.values).length
    if (this.count <= this.maxLocal || !parentOf) return
    // children become dominated when a channel advances; otherwise rescan only after some growth
    if (!this.rootAdvanced && this.count <= this.rescanAbove) return
    this.rootAdvanced = false
    for (const key of Object.keys(this.values)) {
      if (!isDominated(key, this.values, parentOf)) continue
      delete this.values[key]
      delete this.advancedAt[key]
      this.count--
      this.dirty = true
    }
    // what is left is live: scan again only after it grew a little
    this.rescanAbove = this.count + 64
  }
}
