import type { GroupAdmins, GroupKey, GroupMembers, JoinRequest } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import type { RelayPool } from '../pool'
import type { EventStore } from '../store'
import { dismissedKey, JOIN_REQUEST_KINDS, JoinRequestFold } from './join-requests'

/** What {@link GroupRequests} needs from its group. */
export interface GroupRequestsContext {
  readonly key: GroupKey
  readonly store: EventStore
  readonly pool: RelayPool
  /** Something the snapshot shows changed. */
  changed(): void
  /** Events the admins' fetch brought, taken as older history. */
  ingest(events: readonly NostrEvent[]): void
}

/**
 * A group's join requests as its admins see them: the fold of 9021s and their answers
 * (`join-requests.ts`), those dismissed on this device (read from the store with the first request
 * seen, since most groups never see one; written when one is dismissed), and one fetch of every
 * request once we are an admin (the standing subscription's window may hold none of them).
 */
export class GroupRequests {
  private readonly fold: JoinRequestFold
  private dismissedLoaded: Promise<void> | undefined
  /** Whether the requests were fetched for us as an admin since the last (re)subscription. */
  private fetched = false

  constructor(private readonly ctx: GroupRequestsContext) {
    this.fold = new JoinRequestFold(ctx.key.id.value)
  }

  /** Takes a timeline event; true when it is a join request (or an answer to one) the fold kept. */
  add(event: NostrEvent): boolean {
    const request = this.fold.add(event)
    if (request) void this.loadDismissed()
    return request
  }

  /** The open requests, less those dismissed here and people already listed. */
  list(members: GroupMembers | undefined, admins: GroupAdmins | undefined): readonly JoinRequest[] {
    return this.fold.list(members, admins)
  }

  /** Hides a request on this device, remembered across restarts beside those dismissed before. */
  async dismiss(request: JoinRequest): Promise<void> {
    if (!this.fold.dismiss([request.event.id])) return
    this.ctx.changed()
    await this.loadDismissed()
    await this.ctx.store.setValue(dismissedKey(this.ctx.key.toString()), this.fold.dismissedIds())
  }

  /** Asks the relay for the group's join requests and their answers, once per subscription. */
  fetchAsAdmin(): void {
    if (this.fetched) return
    this.fetched = true
    const { key, pool } = this.ctx
    const filter = { kinds: [...JOIN_REQUEST_KINDS], '#h': [key.id.value], limit: 500 }
    void pool
      .fetch([key.relay], [filter])
      .then((events) => this.ctx.ingest(events))
      .catch(() => {
        this.fetched = false
      })
  }

  /** The subscription is starting again: the next admin check fetches again. */
  resubscribed(): void {
    this.fetched = false
  }

  private loadDismissed(): Promise<void> {
    this.dismissedLoaded ??= this.ctx.store.getValue<unknown>(dismissedKey(this.ctx.key.toString())).then(
      (ids) => {
        if (Array.isArray(ids) && this.fold.dismiss(ids)) this.ctx.changed()
      },
      () => {},
    )
    return this.dismissedLoaded
  }
}
