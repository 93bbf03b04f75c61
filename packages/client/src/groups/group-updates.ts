import type { Membership } from '@roost/nip29'
import type { GroupEvent } from './types'

/** What {@link GroupUpdates} reads from its group when an update goes out. */
export interface UpdatesContext {
  /** The group is closed: nothing more is told. */
  closed(): boolean
  /** The membership the current snapshot shows. */
  membership(): Membership
  /** Told when that membership changed (the registry remembers it across restarts). */
  onMembership?(membership: Membership): void
}

/**
 * Who listens to one group, and what they are told: `incoming`, `refused` and `eose` as they
 * happen, and `updated` coalesced to one per microtask, after the registry heard of a membership
 * that changed.
 */
export class GroupUpdates {
  private readonly listeners = new Set<(e: GroupEvent) => void>()
  private queued = false
  /** The membership the registry was last told of (or remembered from the last session). */
  private reported: Membership | undefined

  constructor(private readonly ctx: UpdatesContext) {}

  /** Adds a listener; returns the function that removes it. */
  readonly subscribe = (listener: (e: GroupEvent) => void): (() => void) => {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /** Tells every listener now; one that throws does not stop the others. */
  emit(e: GroupEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l(e)
      } catch (err) {
        queueMicrotask(() => {
          throw err
        })
      }
    }
  }

  /** Something changed: one `updated` goes out at the end of this microtask. */
  queue(): void {
    if (this.queued) return
    this.queued = true
    queueMicrotask(() => {
      this.queued = false
      if (this.ctx.closed()) return
      const m = this.ctx.membership()
      if (
        this.ctx.onMembership &&
        m !== this.reported &&
        JSON.stringify(m) !== JSON.stringify(this.reported)
      ) {
        this.reported = m
        this.ctx.onMembership(m)
      }
      this.emit({ type: 'updated' })
    })
  }

  /** The registry already holds this membership (remembered from the last session). */
  known(membership: Membership): void {
    this.reported = membership
  }

  /** Forgets every listener (the group is closed). */
  clear(): void {
    this.listeners.clear()
  }
}
