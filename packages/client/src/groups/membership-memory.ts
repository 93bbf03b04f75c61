import type { Membership } from '@roost/nip29'
import type { EventStore } from '../store'

const MEMBERSHIP = 'roost:groups:membership'

/**
 * The membership each group folded last, kept in the store so that a restart shows it before any
 * relay answers (a group's 9000 naming us may be far older than the page it starts with). Writes
 * are gathered for 50 ms.
 */
export class MembershipMemory {
  private memberships: Record<string, Membership> = {}
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(private readonly store: EventStore) {}

  /** Reads what the last session kept. */
  async load(): Promise<void> {
    this.memberships = (await this.store.getValue<Record<string, Membership>>(MEMBERSHIP)) ?? {}
  }

  /** What the last session (or this one) folded for a group key string. */
  get(key: string): Membership | undefined {
    return this.memberships[key]
  }

  /** Keeps a group's membership; saved with the others within 50 ms. */
  remember(key: string, membership: Membership): void {
    this.memberships[key] = membership
    this.timer ??= setTimeout(() => {
      this.timer = undefined
      void this.store.setValue(MEMBERSHIP, this.memberships).catch(() => {})
    }, 50)
  }

  /** Forgets a group (it was left or dropped) and saves at once. */
  async forget(key: string): Promise<void> {
    delete this.memberships[key]
    await this.save()
  }

  /** Saves now what is waiting to be saved. */
  async flush(): Promise<void> {
    if (this.timer) await this.save()
  }

  private async save(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    await this.store.setValue(MEMBERSHIP, this.memberships).catch(() => {})
  }
}
