import type { ImetaFields } from '@roost/nip29'
import type { ConnectionState } from './connection'
import type {
  Answer,
  BrowseEntry,
  GroupDetail,
  GroupSummary,
  MessageItem,
  Profile,
  SessionInfo,
  Settings,
  ThreadDetail,
} from './types'

/** Everything the app shell shows outside a single group. */
export interface AppSnapshot {
  session: SessionInfo
  groups: GroupSummary[]
  totalUnread: number
  relays: string[]
  /** Whether the user has a NIP-65 relay list (kind 10002) on these relays ('unknown' until asked). */
  relayList: 'unknown' | 'none' | 'published'
  settings: Settings
  /** NIP-42 state per relay ('none' | 'challenged' | 'authenticating' | 'authenticated' | 'failed'). */
  auth: Record<string, string>
  /** Browser online flag and sockets to the groups' relays: drives the offline banner. */
  connection: ConnectionState
}

export interface JoinAnswer extends Answer {
  key?: string
}

export interface InviteAnswer extends Answer {
  code?: string
  link?: string
}

/** One open group: a snapshot to render and the actions on it. */
export interface GroupHandle {
  readonly key: string
  subscribe(fn: () => void): () => void
  snapshot(): GroupDetail
  thread(rootId: string): ThreadDetail | undefined
  message(id: string): MessageItem | undefined
  send(text: string, replyTo?: string, media?: ImetaFields[]): Promise<Answer>
  react(target: MessageItem, emoji: string): Promise<Answer>
  startThread(title: string, content: string): Promise<Answer>
  reply(rootId: string, parentId: string, text: string): Promise<Answer>
  loadOlder(): Promise<void>
  /** Marks the channel read up to `createdAt` (the newest row seen). */
  markRead(createdAt: number): void
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
  }): Promise<Answer>
  createInvite(): Promise<InviteAnswer>
  removeMember(pubkey: string): Promise<Answer>
  deleteMessage(id: string): Promise<Answer>
}

/** The signed-in application: groups, profiles, settings. UI code talks only to this. */
export interface AppApi {
  subscribe(fn: () => void): () => void
  snapshot(): AppSnapshot
  group(key: string): GroupHandle | undefined
  profile(pubkey: string): Profile | undefined
  /** Fetches a person's newest kind 0 again (when their profile card opens). */
  refreshProfile(pubkey: string): void
  /** Bumps when any profile changes, for components that show names. */
  profilesVersion(): number
  join(input: string): Promise<JoinAnswer>
  leave(key: string): Promise<Answer>
  browse(relay: string): Promise<BrowseEntry[]>
  createGroup(
    relay: string,
    fields: { name: string; about?: string; private: boolean; closed: boolean },
  ): Promise<JoinAnswer>
  setProfile(profile: Profile): Promise<Answer>
  /**
   * Uploads a file to the user's Blossom server (Settings), else to `relay`'s own; images get
   * their size and a blurhash. Throws `UploadError` with the server's reason.
   */
  upload(file: File, relay: string, onProgress?: (sent: number, total: number) => void): Promise<ImetaFields>
  setSettings(settings: Partial<Settings>): void
  addRelay(url: string): Answer
  removeRelay(url: string): void
  /** Publishes a NIP-65 relay list (kind 10002) naming the relays above, and uses it at once. */
  publishRelayList(): Promise<Answer>
  signOut(): Promise<void>
  close(): Promise<void>
}
