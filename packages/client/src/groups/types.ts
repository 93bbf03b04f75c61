import type {
  GroupAdmins,
  GroupMembers,
  GroupMetadata,
  GroupRoles,
  JoinRequest,
  Membership,
} from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import type { CannotSendReason } from '../errors'

/** One reaction emoji on a message, folded from kind 7 events (one per pubkey and emoji). */
export interface Reaction {
  /** The reaction's content: an emoji, `+` for a like (also for an empty content), or a `:shortcode:`. */
  readonly emoji: string
  /** How many people reacted with it (the length of `pubkeys`). */
  readonly count: number
  /** Hex pubkeys of those who reacted with it, each once. */
  readonly pubkeys: readonly string[]
  /** We reacted with this emoji. */
  readonly mine: boolean
}

/**
 * A rendered timeline row: a kind 9 chat message, a kind 1 note, a kind 11 thread root, or (inside
 * a {@link Thread}) a kind 1111 comment. Immutable: a change (a new reaction, a new comment) gives
 * a new object, so `===` tells a UI what to re-render.
 */
export interface Message {
  /** Hex id of the event. */
  readonly id: string
  /** The event's kind: 9, 1, 11 or (in a thread) 1111. */
  readonly kind: number
  /** Hex pubkey of the author. */
  readonly pubkey: string
  /** The event's `created_at`, Unix seconds (as the author's clock says). */
  readonly createdAt: number
  /** The text as sent, unparsed (see `parseContent` from `@roost/nip29` to render it). */
  readonly content: string
  /** The signed event as received. */
  readonly event: NostrEvent
  /** Sent by us. */
  readonly mine: boolean
  /** Ids this message replies to or quotes (kind 9 `q`/`e` tags), for quoting in the UI. */
  readonly replyTo: readonly string[]
  /** Its reactions per emoji, most reacted first; `[]` when none. */
  readonly reactions: readonly Reaction[]
  /**
   * For a kind 11 thread root: its title and how many kind 1111 comments it has; for a kind 9
   * replied to in thread (NIP-22 comments with `K` 9), an empty title and its count.
   */
  readonly thread?: {
    /** The kind 11's `title` tag; `''` when it has none, and for a kind 9. */
    readonly title: string
    /** How many comments it has, deleted ones left out. */
    readonly comments: number
    /** `created_at` of the newest comment, Unix seconds; undefined when there is none. */
    readonly lastCommentAt?: number
  }
}

/** A thread (a kind 11, or a kind 9 replied to in thread) and its kind 1111 comments, oldest first. */
export interface Thread {
  /** The message the thread hangs on. */
  readonly root: Message
  /** Its kind 1111 comments, oldest first, deleted ones left out. */
  readonly comments: readonly Message[]
}

/** Whether the composer can send, and if not, why (for a disabled composer with a hint). */
export type CanSend =
  | {
      /** The composer can send. */
      readonly ok: true
    }
  | {
      /** The composer should be disabled. */
      readonly ok: false
      /** Why, to branch on. */
      readonly reason: CannotSendReason
      /** An English sentence for the hint (for `refused`, the relay's own text). */
      readonly detail: string
    }

/**
 * Everything a UI reads from a group, as one immutable value. The same object is returned until
 * something changes, so `useSyncExternalStore(group.subscribe, group.snapshot)` works as is.
 */
export interface GroupSnapshot {
  /** `GroupKey` string: `<relay>'<id>`. */
  readonly key: string
  /** The group's relay URL, normalized. */
  readonly relay: string
  /** The group's id on that relay. */
  readonly id: string
  /** The key that signs this group's state (NIP-11 `self ?? pubkey`, …), once known. */
  readonly relayKey: string | undefined
  /**
   * True when that key is only the author of the first 39000 seen (the relay's NIP-11 named none):
   * a UI should say the group's state is not verified.
   */
  readonly unverified: boolean
  /** Name, picture, flags (the relay-signed 39000); undefined until one is received. */
  readonly metadata: GroupMetadata | undefined
  /** Members holding roles (the 39001); undefined until one is received. */
  readonly admins: GroupAdmins | undefined
  /** The member list (the 39002), possibly partial; undefined until one is received. */
  readonly members: GroupMembers | undefined
  /** The roles the group defines (the 39003); undefined until one is received. */
  readonly roles: GroupRoles | undefined
  /** Pinned event ids and addresses, in order (the relay-signed 39005). */
  readonly pins: readonly string[]
  /** Join requests waiting for an admin, oldest first (see `Group.joinRequests()`). */
  readonly joinRequests: readonly JoinRequest[]
  /** Our own standing: unknown, pending, member, refused or removed. */
  readonly membership: Membership
  /** Top-level rows (kinds 9, 1, 11) oldest first, reactions folded, deletions applied. */
  readonly messages: readonly Message[]
  /** Threads (kind 11, and kind 9 replied to in thread) with their comments, newest activity last. */
  readonly threads: readonly Thread[]
  /** True until the relay's first EOSE for this group (rows may come from the local store). */
  readonly loading: boolean
  /** The relay's text when it refused our subscription (`restricted: …`, `auth-required: …`). */
  readonly refused: string | undefined
  /** False once paging back found the start of the group's history. */
  readonly hasOlder: boolean
  /**
   * Paging back needed the relay and it did not answer (offline, unreachable, or silent until the
   * query gave up): `loadOlder` brings nothing more from it now. False again once the relay answers
   * this group (its subscription's EOSE after a reconnect, or a page): a UI says why no older
   * messages come instead of a spinner, and pages back again when this turns false.
   */
  readonly olderUnreachable: boolean
  /** Whether the composer can send now, and if not why (same as `Group.canSend()`). */
  readonly canSend: CanSend
  /** Unread top-level rows not sent by us, per the injected read-state source (0 without one). */
  readonly unread: number
  /** Roots of threads with an unread comment (needs a read-state source with `contexts`). */
  readonly unreadThreads: readonly string[]
  /**
   * Unread messages and thread replies by others that mention us (NIP-27 `nostr:npub…` or a `p`
   * tag on kinds 9 and 11), for a mention badge that shows even when the group is muted.
   */
  readonly mentions: number
}

/** How an event reaches a group's `ingest` (the registry's entry point). */
export interface IngestOptions {
  /** Read back from our own store (verified when it arrived; not stored or announced again). */
  fromStore?: boolean
  /** From a newest-first page of history: within its second it arrived before what is held. */
  older?: boolean
  /** Our own event, accepted by the relay. */
  own?: boolean
  /** Fetched apart from the timeline's pages (membership, join requests): paging back does not start from it. */
  aside?: boolean
  /**
   * From the head of a stored answer, taken oldest first once it ended: within its second it
   * arrived after what is held, so it is numbered as a live arrival (see `BacklogHead`), though
   * the relay did not send it live.
   */
  head?: boolean
}

/** What a group tells its listeners. `updated` is coalesced: at most one per microtask. */
export type GroupEvent =
  | {
      /** An event new to this client, live or our own send. */
      readonly type: 'incoming'
      /** The signed event. */
      readonly event: NostrEvent
    }
  | {
      /** The snapshot changed. */
      readonly type: 'updated'
    }
  | {
      /** The relay ended our subscription. */
      readonly type: 'refused'
      /** Its CLOSED text (`restricted: …`, `auth-required: …`). */
      readonly reason: string
    }
  | {
      /** The relay sent its stored events (EOSE). */
      readonly type: 'eose'
    }

/**
 * Where `Group.unread()` and `Group.markRead()` read and write: the read-state sync (NIP-RS) plugs
 * in here. `frontier(context)` is the unix time up to which the channel counts as read; `markRead`
 * advances it. `context` is the group key string (DESIGN decision 1).
 *
 * @example
 * const local: ReadStateSource = {
 *   frontier: (ctx) => marks.get(ctx) ?? 0,
 *   markRead: (ctx, ts) => marks.set(ctx, Math.max(marks.get(ctx) ?? 0, ts)),
 *   subscribe: () => () => {},
 * }
 */
export interface ReadStateSource {
  /**
   * Every known context and its frontier (NIP-RS merged state). When present, unread counts use
   * the hierarchical rule of `@roost/read-state` (`msg:`/`thread:` marks count too).
   */
  readonly contexts?: Readonly<Record<string, number>>
  /** The read frontier of a context (`created_at` in seconds; 0 when nothing is read). */
  frontier(context: string): number
  /** Moves the context's frontier up to `timestamp` (never back). */
  markRead(context: string, timestamp: number): void
  /** Called whenever any frontier moves; returns an unsubscribe function. */
  subscribe(listener: () => void): () => void
}
