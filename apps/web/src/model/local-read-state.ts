/**
 * Read marks kept on this device only (the "keep read state on this device" setting, and the
 * fallback when no sync is configured): a grow-only map of context → unix time, persisted in
 * the event store's small-value table so a reload keeps it.
 */
import type { EventStore } from '@roost/client'

const KEY = 'web:read-marks'

export interface ReadMarks {
  frontier(context: string): number
  markRead(context: string, timestamp: number): void
  subscribe(listener: () => void): () => void
}

export class LocalReadState implements ReadMarks {
  private marks = new Map<string, number>()
  private readonly listeners = new Set<() => void>()
  private saveTimer: ReturnType<typeof setTimeout> | undefined

  private constructor(private readonly store: EventStore) {}

  static async open(store: EventStore): Promise<LocalReadState> {
    const state = new LocalReadState(store)
    const saved = await store.getValue<Record<string, number>>(KEY).catch(() => undefined)
    if (saved) for (const [k, v] of Object.entries(saved)) if (Number.isInteger(v)) state.marks.set(k, v)
    return state
  }

  frontier(context: string): number {
    return this.marks.get(context) ?? 0
  }

  markRead(context: string, timestamp: number): void {
    if ((this.marks.get(context) ?? 0) >= timestamp) return
    this.marks.set(context, timestamp)
    for (const l of this.listeners) l()
    if (!this.saveTimer) {
      this.saveTimer = setTimeout(() => {
        this.saveTimer = undefined
        void this.store.setValue(KEY, Object.fromEntries(this.marks)).catch(() => undefined)
      }, 500)
    }
  }

  /** Everything known, for handing over to a sync when the setting changes. */
  entries(): [string, number][] {
    return [...this.marks]
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}
