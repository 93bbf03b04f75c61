import type { ForkReport, ImetaFields, ReportType } from '@roost/nip29'
import type { GroupOrigin } from '../lib/lookalike'
import type { GroupPreview } from './community'
import type { ConnectionState } from './connection'
import type { ReportAction, ReportItem } from './reports'
import type { SearchAnswer } from './search'
import type {
  Answer,
  BrowseEntry,
  Draft,
  GroupDetail,
  GroupSummary,
  MessageItem,
  NotifyLevel,
  Profile,
  SessionInfo,
  Settings,
  ThreadDetail,
} from './types'

/** Everything the app shell shows outside a single group. */
export interface AppSnapshot {
  session: SessionInfo
  /**
   * The groups this device holds are loaded from its cache, and the profiles it knows (so cached
   * messages paint with their authors' names). Until then `groups` is empty for want of a read,
   * not because there are none: no page says so (nor asks a relay for its groups).
   */
  loaded: boolean
  groups: GroupSummary[]
  totalUnread: number
  relays: string[]
  /** Whether the user has a NIP-65 relay list (kind 10002) on these relays ('unknown' until asked). */
  relayList: 'unknown' | 'none' | 'published'
  settings: Settings
  /**
   * Where each relay serves Blossom (from its NIP-11), by relay URL: uploads go there and its
   * images load without a click. A Roost relay serves media from an origin of its own.
   */
  mediaServers: Readonly<Record<string, string>>
  /** NIP-42 state per relay ('none' | 'challenged' | 'authenticating' | 'authenticated' | 'failed'). */
  auth: Record<string, string>
  /** Browser online flag and sockets to the groups' relays: drives the offline banner. */
  connection: ConnectionState
  /** False without IndexedDB (private browsing): read state is read, not kept nor published. */
  readStateKept: boolean
}

export interface JoinAnswer extends Answer {
  key?: string
  /** The relay kept the request for the group's admins (the user is not in yet). */
  pending?: boolean
}

export interface InviteAnswer extends Answer {
  code?: string
  link?: string
  /** The terms the invite was made with: joins it admits (absent: one) and when it ends. */
  uses?: number | 'unlimited'
  expiresAt?: number
}

/** The terms of a new invite: how many joins it admits (default one) and until when (unix seconds). @example { uses: 10, expiresAt: now + 86400 } */
export interface InviteTerms {
  uses?: number | 'unlimited'
  expiresAt?: number
}

/** What a report names: a message of the group, or a person. @example { message: id } */
export type ReportSubject = { message: string } | { person: string }

/** A call token (NIP-29 AV) for `livekit-client`, or why there is none. */
export type CallAnswer = (Answer & { ok: false }) | { ok: true; message: string; url: string; token: string }

/**
 * What the message boxes hold on this device, per box: a group's box is named by its group key,
 * a thread's reply box by `<group key>#<root id>`. `get` returns the same object until it changes.
 */
export interface Drafts {
  get(box: string): Draft
  /** Replaces the draft (an empty one is forgotten at once). */
  set(box: string, draft: Draft): void
  subscribe(fn: () => void): () => void
}

/** One open group: a snapshot to render and the actions on it. */
export interface GroupHandle {
  readonly key: string
  subscribe(fn: () => void): () => void
  snapshot(): GroupDetail
  thread(rootId: string): ThreadDetail | undefined
  message(id: string): MessageItem | undefined
  send(text: string, replyTo?: string, media?: ImetaFields[]): Promise<Answer>
  /**
   * Hands what a message box held to the group's send queue, at once. Messages leave one after
   * another in the order posted, each once the one before it is answered. When one is not sent,
   * the messages queued behind it go back into their boxes' drafts (in order, before anything
   * typed since) with the reason; the failed one itself stays in the timeline with its reason,
   * Retry and Delete (or goes back to its box too when it was never signed). A message with no
   * answer in time does not stop the line: it shows as not confirmed until the relay's copy shows. With `thread` it is a reply in that
   * thread (kind 1111 to `parent`) instead of a channel message. Resolves with its answer.
   */
  post(box: string, draft: Draft, thread?: { root: string; parent: string }): Promise<Answer>
  /** Sends one of our failed or unconfirmed messages again: the same signed event, so never a copy. */
  retrySend(id: string): Promise<Answer>
  /** Drops one of our failed messages from the timeline (it never reached the relay). */
  discardSend(id: string): void
  react(target: MessageItem, emoji: string): Promise<Answer>
  startThread(title: string, content: string): Promise<Answer>
  reply(rootId: string, parentId: string, text: string): Promise<Answer>
  loadOlder(): Promise<void>
  /** Marks the channel read up to `createdAt` (the newest row seen). */
  markRead(createdAt: number): void
  /** Marks everything in the group read up to now (the read-state mark other devices follow). */
  markAllRead(): void
  markThreadRead(rootId: string, createdAt: number): void
  /** Marks one reply read by its `msg:<id>` context only (NIP-RS Write Discipline). */
  markMessageRead(id: string): void
  retryJoin(code?: string): Promise<Answer>
  editMetadata(fields: {
    name?: string
    about?: string
    picture?: string
    private?: boolean
    closed?: boolean
    restricted?: boolean
    hidden?: boolean
  }): Promise<Answer>
  createInvite(terms?: InviteTerms): Promise<InviteAnswer>
  /** Reports a message or a person to the group's admins (NIP-56 kind 1984). */
  report(subject: ReportSubject, type: ReportType, reason: string): Promise<Answer>
  /** The group's open reports (admins: all of them; others: their own), newest first. */
  reports(): Promise<ReportItem[]>
  /** Acts on a report (delete the message, remove the person, or dismiss) and closes it. */
  resolveReport(report: ReportItem, action: ReportAction): Promise<Answer>
  removeMember(pubkey: string): Promise<Answer>
  deleteMessage(id: string): Promise<Answer>
  /** Asks the relay for a LiveKit token for the group's call. */
  call(): Promise<CallAnswer>
  /** Withdraws one of our own messages for everyone (NIP-09 kind 5). */
  deleteOwn(id: string): Promise<Answer>
  /** Withdraws our own reaction `emoji` to a message (NIP-09 kind 5 of the reaction). */
  unreact(target: MessageItem, emoji: string): Promise<Answer>
  /** Lets a requester in (9000). */
  approve(pubkey: string): Promise<Answer>
  /** Hides a join request on this device. */
  dismiss(pubkey: string): Promise<void>
  /** Sets a member's roles (9000 with roles). */
  setRoles(pubkey: string, roles: string[]): Promise<Answer>
  /** Pins or unpins a message (9010 with the full list). */
  pin(id: string, pinned: boolean): Promise<Answer>
  /** Deletes the group for everyone (9008), then drops it here. */
  deleteGroup(): Promise<Answer>
  /** Hangs the group under `parent` (a group id on the same relay), or makes it a root. */
  moveUnder(parent: string | undefined): Promise<Answer>
}

/** The signed-in application: groups, profiles, settings. UI code talks only to this. */
export interface AppApi {
  subscribe(fn: () => void): () => void
  /** The message boxes' drafts on this device, for this account. */
  readonly drafts: Drafts
  snapshot(): AppSnapshot
  group(key: string): GroupHandle | undefined
  profile(pubkey: string): Profile | undefined
  /**
   * Searches messages in one group (`groupKey`) or in every group, newest first: this device's
   * cache and the groups' relays, or with `cacheOnly` the cache alone (an answer without waiting
   * on the network).
   */
  search(text: string, groupKey?: string, opts?: { cacheOnly?: boolean }): Promise<SearchAnswer>
  /** Fetches a person's newest kind 0 again (when their profile card opens). */
  refreshProfile(pubkey: string): void
  /** Bumps when any profile changes, for components that show names. */
  profilesVersion(): number
  join(input: string, code?: string): Promise<JoinAnswer>
  /** What a group link or code points at, for the join dialog's preview. */
  preview(input: string): Promise<GroupPreview>
  leave(key: string): Promise<Answer>
  /**
   * Takes a group off the user's list (10009) and this device without asking the relay: for a
   * group that refused or removed them, where a 9022 would only be refused.
   */
  forget(key: string): Promise<Answer>
  /** Marks every group read up to now. */
  markAllRead(): void
  /** Follows the group admins' 10009 lists (moved or copied groups); returns the stop function. */
  watchForks(key: string, fn: (report: ForkReport) => void): () => void
  /**
   * A relay's public groups, by name; groups whose names look alike are told apart (their
   * origins fetched, the original first, the others marked: `lib/lookalike.ts`).
   */
  browse(relay: string): Promise<BrowseEntry[]>
  /** Where groups `ids` on `relay` came from (creation event, members), asked once per group. */
  groupOrigins(relay: string, ids: readonly string[]): Promise<Record<string, GroupOrigin>>
  createGroup(
    relay: string,
    fields: { name: string; about?: string; private: boolean; closed: boolean; parent?: string },
  ): Promise<JoinAnswer>
  setProfile(profile: Profile): Promise<Answer>
  /**
   * Uploads a file to the user's Blossom server (Settings), else to the one `relay` names in its
   * NIP-11 (its own origin otherwise); images get their size and a blurhash. Throws `UploadError`
   * with the server's reason.
   */
  upload(file: File, relay: string, onProgress?: (sent: number, total: number) => void): Promise<ImetaFields>
  setSettings(settings: Partial<Settings>): void
  /** Sets a group's notification level on this device. */
  setNotifyLevel(key: string, level: NotifyLevel): void
  addRelay(url: string): Answer
  removeRelay(url: string): void
  /** Publishes a NIP-65 relay list (kind 10002) naming the relays above, and uses it at once. */
  publishRelayList(): Promise<Answer>
  signOut(): Promise<void>
  close(): Promise<void>
}
