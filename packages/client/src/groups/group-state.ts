import { GroupAdmins, GroupMembers, GroupMetadata, GroupRoles, KINDS } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'

/** State kinds this client reads (39000–39005); only the relay key may sign them (decision 3). */
export const STATE_KINDS: ReadonlySet<number> = new Set<number>([
  KINDS.metadata,
  KINDS.admins,
  KINDS.members,
  KINDS.roles,
  KINDS.participants,
  KINDS.pins,
])

/** How the folded state learns (and, as a last resort, pins) its relay's key. */
export interface RelayKeySource {
  /** The relay key, once known. */
  current(): string | undefined
  /** Pins the key to the author of the first 39000 seen, when nothing better is known. */
  pin(pubkey: string): void
}

/** Newest per NIP-01 replaceable rules: higher created_at, then the lower id. */
function newer(a: NostrEvent, b: NostrEvent | undefined): boolean {
  if (!b) return true
  return a.created_at > b.created_at || (a.created_at === b.created_at && a.id < b.id)
}

/**
 * A group's relay-signed state (39000–39005), folded: the newest event per kind signed by the
 * relay key, parsed. State that arrives before the key is known waits (bounded) until it is.
 */
export class GroupState {
  private readonly events = new Map<number, NostrEvent>()
  /** State events that arrived before the relay key was known. */
  private readonly waiting: NostrEvent[] = []
  private parsed: {
    metadata?: GroupMetadata
    admins?: GroupAdmins
    members?: GroupMembers
    roles?: GroupRoles
  } = {}

  constructor(
    private readonly groupId: string,
    private readonly relayKey: RelayKeySource,
  ) {}

  get metadata(): GroupMetadata | undefined {
    return this.parsed.metadata
  }
  get admins(): GroupAdmins | undefined {
    return this.parsed.admins
  }
  get members(): GroupMembers | undefined {
    return this.parsed.members
  }
  get roles(): GroupRoles | undefined {
    return this.parsed.roles
  }

  /** The newest accepted state event of a kind. */
  event(kind: number): NostrEvent | undefined {
    return this.events.get(kind)
  }

  /** Is `pubkey` an admin (a 39001 entry whose roles are not only `member`/empty, case-insensitive)? */
  isAdmin(pubkey: string): boolean {
    const entry = this.parsed.admins?.entries.find((e) => e.pubkey === pubkey)
    if (!entry) return false
    if (entry.roles.length === 0) return true
    return entry.roles.some((r) => r.trim() !== '' && r.trim().toLowerCase() !== 'member')
  }

  /** The relay key or an admin: whose 9000/9001/9005 count. */
  isModerator(pubkey: string): boolean {
    return pubkey === this.relayKey.current() || this.isAdmin(pubkey)
  }

  /**
   * Folds in one state event; true when it changed the state. Signed by anyone but the relay key,
   * for another group, older than what is held, or malformed: ignored.
   */
  ingest(event: NostrEvent, fromStore: boolean): boolean {
    if (event.tags.find((t) => t[0] === 'd')?.[1] !== this.groupId) return false
    let key = this.relayKey.current()
    if (key === undefined && event.kind === KINDS.metadata && !fromStore) {
      // Decision 3's last resort: the author of the first 39000 seen for this relay.
      this.relayKey.pin(event.pubkey)
      key = this.relayKey.current()
    }
    if (key === undefined) {
      if (this.waiting.length < 64) this.waiting.push(event)
      return false
    }
    if (event.pubkey !== key) return false // a 39000 signed by anyone else is not the group's state
    if (!newer(event, this.events.get(event.kind))) return false
    try {
      this.apply(event)
    } catch {
      return false // malformed state: ignored, as the spec says
    }
    this.events.set(event.kind, event)
    return true
  }

  private apply(event: NostrEvent): void {
    switch (event.kind) {
      case KINDS.metadata:
        this.parsed = { ...this.parsed, metadata: GroupMetadata.parse(event) }
        break
      case KINDS.admins:
        this.parsed = { ...this.parsed, admins: GroupAdmins.parse(event) }
        break
      case KINDS.members:
        this.parsed = { ...this.parsed, members: GroupMembers.parse(event) }
        break
      case KINDS.roles:
        this.parsed = { ...this.parsed, roles: GroupRoles.parse(event) }
        break
      default:
        break // 39004/39005 are kept raw for now
    }
  }

  /**
   * The relay key became known (or changed): drops state signed by another key and re-checks what
   * waited. Returns the waiting events that were accepted, so the caller can store them.
   */
  relayKeyChanged(): NostrEvent[] {
    const key = this.relayKey.current()
    for (const [kind, e] of this.events) {
      if (e.pubkey !== key) this.events.delete(kind)
    }
    if (!this.events.has(KINDS.metadata)) this.parsed = { ...this.parsed, metadata: undefined }
    const accepted: NostrEvent[] = []
    for (const e of this.waiting.splice(0)) if (this.ingest(e, false)) accepted.push(e)
    return accepted
  }
}
