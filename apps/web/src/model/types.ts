/**
 * What the UI renders: plain immutable snapshots, built from @roost/client's Group and
 * GroupsRegistry by the adapter in `roost-app.ts`. Components depend on these types only.
 */
import type { ImetaFields } from '@roost/nip29'
import type { GroupOrigin, TwinVerdict } from '../lib/lookalike'
import type { JoinRequestItem, RoleItem } from './community'

export type Access =
  | { status: 'unknown' }
  | { status: 'pending'; since: number }
  | { status: 'member' }
  | { status: 'refused'; reason: string }
  | { status: 'removed' }

export interface GroupSummary {
  /** GroupKey string: `<relay>'<id>`. */
  key: string
  id: string
  relay: string
  name: string
  picture?: string
  unread: number
  /** Unread messages that mention us: their own badge, shown even when the group is muted. */
  mentions: number
  /** This device's notification setting for the group (`notify-levels.ts`). */
  notify: NotifyLevel
  threadUnread: boolean
  access: Access
  /** Join requests waiting for us as an admin (0 for others). */
  requests: number
  /** The parent group's id on the same relay (NIP-29 subgroups). */
  parent?: string
  /**
   * We hold the group's `admin` role: the relay lets us put another of its groups under this one
   * (a Roost relay asks exactly that of a 9002 that sets a `parent`).
   */
  mayParent: boolean
}

/** Per group, on this device: notify for every message, only for mentions, or never (muted). */
export type NotifyLevel = 'all' | 'mentions' | 'muted'

export interface ReactionSummary {
  emoji: string
  count: number
  mine: boolean
  /** Who reacted with this emoji. */
  pubkeys: readonly string[]
}

export interface MessageItem {
  id: string
  pubkey: string
  kind: number
  content: string
  createdAt: number
  /** Kind 9 replies: the quoted message id. */
  replyTo?: string
  /** Kind 11 threads: title and reply count. */
  title?: string
  replies?: number
  reactions: ReactionSummary[]
  /** Set while our own message is being published. */
  pending?: boolean
  /**
   * Our own message the relay has not confirmed: `sending`, `unknown` (no answer in time; it may
   * be stored, and turns sent when the relay's copy shows) or `failed` with the relay's reason,
   * which offers Retry (the same signed event) and Delete. Absent once sent.
   */
  send?: { status: 'sending' | 'unknown' | 'failed'; reason?: string }
  /** Someone else's message that mentions us (NIP-27 or a `p` tag). */
  mentionsMe?: boolean
  /** Attached files (NIP-92 `imeta` tags), valid ones only. */
  media?: ImetaFields[]
}

export interface Member {
  pubkey: string
  roles: string[]
  admin: boolean
}

export interface GroupDetail extends GroupSummary {
  about?: string
  flags: { private: boolean; restricted: boolean; hidden: boolean; closed: boolean; livekit?: boolean }
  members: Member[]
  /** False until a relay-signed 39000 arrived (private groups hide it from non-members). */
  metadataKnown: boolean
  /** The members list (39002) is optional; false means the relay did not publish one. */
  membersKnown: boolean
  me?: { admin: boolean; roles: string[] }
  canSend: { ok: true } | { ok: false; reason: string }
  /** Top-level rows (kinds 9, 1, 11), oldest first. */
  messages: MessageItem[]
  /** Our messages handed to the group's send queue and not yet answered by the relay. */
  sending: number
  /** created_at of the read frontier; messages after it are new. */
  frontier?: number
  hasOlder: boolean
  loadingOlder: boolean
  /** Paging back needed the relay and it did not answer; false again once it answers the group. */
  olderUnreachable: boolean
  /** An invite code created in this session, for the share box. */
  lastInvite?: string
  /** The relay's text when it refused to serve this group (`restricted: …`, `auth-required: …`). */
  refused?: string
  /** True until the relay answered (what is shown came from the local cache). */
  loading: boolean
  /** Join requests waiting for an admin (shown to admins). */
  joinRequests: JoinRequestItem[]
  /** Bumps when a report or a deletion arrives live: the admins' report list asks again. */
  reportsSeen: number
  /** The roles the relay defines (39003). */
  roles: RoleItem[]
  /** Pinned event ids, in order (39005). */
  pins: string[]
  /** Subgroup ids, in the relay's order. */
  children: string[]
  /** The naddr and this client's web link to share, once the 39000 is known. */
  share?: { naddr: string; web: string }
}

/** A person picked from the `@` list: the label the text shows and who it names. */
export interface DraftMention {
  /** What the text shows, e.g. `@Ada`. */
  label: string
  pubkey: string
}

/**
 * What a message box holds on this device: the text as typed, the people picked in it, the
 * message it replies to, and files that came back from a send that failed.
 */
export interface Draft {
  text: string
  mentions: readonly DraftMention[]
  /** The id of the message quoted (kind 9 replies). */
  replyTo?: string
  /** Uploaded files of a message that was not sent, to put back under the box (not kept across reloads). */
  media?: readonly ImetaFields[]
  /** Why the last message from this box was not sent (not kept across reloads). */
  error?: string
}

export interface ThreadDetail {
  root: MessageItem
  replies: MessageItem[]
}

export interface Profile {
  name?: string
  picture?: string
  about?: string
}

/** The relay's answer to something we sent, shown to the user verbatim. */
export interface Answer {
  ok: boolean
  message: string
  /** A failed message that stays in the timeline (with Retry and Delete), so it does not go back to the box. */
  shown?: boolean
}

export interface BrowseEntry {
  id: string
  relay: string
  name: string
  about?: string
  picture?: string
  closed: boolean
  private: boolean
  joined: boolean
  /** What the relay's own lists (39001/39002) say the user is there, in the list or not. */
  role?: 'admin' | 'member'
  /** Only when another group on the relay has a look-alike name: where this one came from. */
  origin?: GroupOrigin
  /** Only then too: how it compares with its look-alikes (`lib/lookalike.ts`). */
  twin?: TwinVerdict
}

export type SignInMethod = 'local' | 'nip07' | 'nip46'

export interface SessionInfo {
  pubkey: string
  method: SignInMethod
  /** Only for keys generated or pasted here. */
  nsec?: string
}

export interface Settings {
  /** Decision l: read state syncs by default; this keeps it on this device. */
  readStateLocalOnly: boolean
  notifications: boolean
  /** The user's own Blossom server for uploads (default: the group's relay); its images load automatically. */
  blossomServer?: string
  /** Load images and pictures from any host without a click (each load tells that host who is reading). */
  loadAllImages?: boolean
  /** Origins whose images and pictures the user allowed to load without a click, one by one. */
  allowedHosts?: string[]
}
