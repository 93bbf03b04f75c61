/**
 * The signed-in application on top of @roost/client: `createRoost` with an IndexedDB cache,
 * read marks, kind 0 profiles, settings and notifications, exposed to React as `AppApi`
 * snapshots (stable objects until something changes, for `useSyncExternalStore`).
 */
import {
  createRoost,
  type EventStore,
  fetchRelayInfo,
  type Group,
  MemoryEventStore,
  RELAY_LIST_KIND,
  RelayPool,
  type Roost,
} from '@roost/client'
import {
  type ForkReport,
  GroupKey,
  GroupMetadata,
  GroupReference,
  type ImetaFields,
  KINDS,
  mentionsPubkey,
  normalizeRelayUrl,
  parseContent,
} from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools'
import type { GroupOrigin } from '../lib/lookalike'
import { cleanName, tameMarks } from '../lib/names'
import { afterNextPaint } from '../lib/paint'
import { forgetPrepaint } from '../lib/prepaint'
import { quoteFreeText } from '../lib/quote'
import { toAnswer } from './answer'
import type { AppApi, AppSnapshot, JoinAnswer } from './api'
import { BootStore, openBootStore } from './boot-store'
import { browseOrder } from './browse-order'
import { rolesFromLists } from './browse-roles'
import { fetchPreview, type GroupPreview } from './community'
import { ConnectionWatch, OFFLINE_MESSAGE } from './connection'
import { DraftBook } from './drafts'
import { watchForks } from './forks'
import { GroupAdapter } from './group-adapter'
import { GroupOrigins } from './group-origins'
import { LaterVerifier } from './later-verifier'
import { MediaServers, uploadFile } from './media'
import { loadNotifyLevels, notifies, saveNotifyLevels, titleCount } from './notify-levels'
import { localChangeAt, NotifySync, setLocalChangeAt } from './notify-sync'
import { ProfileBook } from './profiles'
import { PublicMetadata } from './public-metadata'
import { ReadStateSwitch } from './read-state'
import { type SearchAnswer, searchMessages } from './search'
import { type OpenSession, saveRelays } from './session'
import { TabReadState } from './tab-read-state'
import type { Answer, BrowseEntry, NotifyLevel, Profile, Settings } from './types'

const NOTIFY_KINDS = new Set<number>([KINDS.chat, KINDS.note, KINDS.thread, KINDS.comment])

function settingsKey(pubkey: string) {
  return `roost.settings.${pubkey}`
}

function loadSettings(pubkey: string): Settings {
  const fallback: Settings = { readStateLocalOnly: false, notifications: false }
  try {
    const raw = localStorage.getItem(settingsKey(pubkey))
    return raw ? { ...fallback, ...(JSON.parse(raw) as Partial<Settings>) } : fallback
  } catch {
    return fallback
  }
}

/**
 * The browser's persistent cache (IndexedDB, one database per account, opened at boot when this
 * account started last), else memory.
 */
async function openStore(pubkey: string): Promise<EventStore> {
  if (typeof indexedDB !== 'undefined') {
    try {
      return await openBootStore(pubkey)
    } catch {
      // Private windows may refuse IndexedDB; run from memory then (nothing survives a reload).
    }
  }
  return new MemoryEventStore()
}

class RoostApp implements AppApi {
  private readonly listeners = new Set<() => void>()
  private readonly adapters = new Map<Group, GroupAdapter>()
  private readonly unsubs: Array<() => void> = []
  /** Each relay's Blossom origin (NIP-11), asked directly so a failed start is asked again. */
  private readonly media = new MediaServers(
    (relay) => fetchRelayInfo(relay, globalThis.fetch.bind(globalThis), 5000),
    () => this.changed(),
  )
  private snap: AppSnapshot | undefined
  private readonly auth: Record<string, string> = {}
  private relays: string[]
  private relayList: AppSnapshot['relayList'] = 'unknown'
  private settings: Settings
  private notifyLevels: Record<string, NotifyLevel>
  private profiles!: ProfileBook
  private readonly startedAt = Math.floor(Date.now() / 1000)
  private roost!: Roost
  private pool!: RelayPool
  private marks!: TabReadState
  private connection!: ConnectionWatch
  private publicMeta!: PublicMetadata
  readonly drafts: DraftBook
  private origins!: GroupOrigins
  /** The cached groups were painted: the relays may be asked (see `start`). */
  private painted = false
  private readonly verifier = new LaterVerifier()
  /** The cached groups and the profiles known are loaded (`AppSnapshot.loaded`). */
  private loaded = false
  private closing = false

  constructor(
    private readonly session: OpenSession,
    private readonly store: EventStore,
    private readonly onSignOut: () => void,
  ) {
    this.relays = [...new Set(session.relays.map((r) => safeNormalize(r) ?? r))]
    this.settings = loadSettings(session.pubkey)
    this.notifyLevels = loadNotifyLevels(session.pubkey)
    this.drafts = new DraftBook({ account: session.pubkey, storage: browserStorage() })
  }

  /** The page is hidden (maybe for good) or closing: drafts are written now. */
  private readonly onHide = (): void => {
    if (document.visibilityState === 'hidden') this.drafts.flush()
  }

  /** The page is closing: queued messages that have not left go back to their drafts, kept. */
  private readonly onPageHide = (): void => {
    for (const a of this.adapters.values()) a.pageHidden()
    this.drafts.flush()
  }

  start(): void {
    this.pool = new RelayPool({
      signer: this.session.signer,
      verifier: this.verifier,
      onAuthState: (relay, state) => {
        this.auth[relay] = state
        this.changed()
      },
    })
    // One installation per browser profile: the tabs of this account share one sync (tab-read-state.ts).
    this.marks = new TabReadState(
      {
        name: `roost-read-state-${this.session.pubkey}`,
        parentOf: (ctx) => this.roost?.groups.parentOf(ctx),
        lead: () =>
          new ReadStateSwitch(
            {
              pool: this.pool,
              signer: this.session.signer,
              store: this.store,
              relays: this.relays,
              // Without IndexedDB (private browsing) nothing survives a reload, ids included: read
              // the other devices' read state but publish none, or each start would claim a new slot.
              readOnly: this.store instanceof MemoryEventStore,
              parentOf: (ctx) => this.roost?.groups.parentOf(ctx),
            },
            this.settings.readStateLocalOnly,
          ),
      },
      this.settings.readStateLocalOnly,
    )
    this.roost = createRoost({
      signer: this.session.signer,
      store: this.store,
      relays: this.relays,
      readState: this.marks,
      relayPool: this.pool,
      // The user's NIP-65 list, at start or found later: read state moves to its relays too.
      onRelayList: (list) => {
        void this.marks.setRelays(list)
        this.relayList = 'published'
        this.changed()
      },
    })
    this.profiles = new ProfileBook(
      this.roost.pool,
      this.store,
      () => this.profileRelays(),
      () => this.changed(),
    )
    // The names of the cached messages' authors, read with the cached groups (and, at the next
    // start, with the boot store's first reads), so they paint together.
    const profilesRead = this.profiles.restore()
    this.connection = new ConnectionWatch({
      relays: () => [...new Set(this.roost.groups.groups().map((g) => g.key.relay))],
      connected: (relay) => this.pool.connected(relay),
      // A one-shot query opens the socket at once instead of waiting out the reconnect backoff.
      reconnect: (relay) =>
        void this.pool
          .fetch([relay], [{ kinds: [KINDS.metadata], limit: 1 }], { timeout: 5000 })
          .catch(() => []),
      onChange: () => this.changed(),
    })
    this.connection.start()
    this.origins = new GroupOrigins(this.roost.pool, (relay) => this.roost.groups.relayKey(relay))
    this.publicMeta = new PublicMetadata(
      this.roost.pool,
      (relay) => this.roost.groups.relayKey(relay),
      () => {
        for (const a of this.adapters.values()) a.marksChanged()
        this.changed()
      },
    )
    this.unsubs.push(this.roost.groups.subscribe(() => this.syncGroups()))
    this.unsubs.push(
      this.marks.subscribe(() => {
        for (const a of this.adapters.values()) a.marksChanged()
        this.changed()
      }),
    )
    this.syncGroups()
    // The cached groups are loaded: the reads that took are the ones the next start begins with.
    const store = this.store
    if (store instanceof BootStore)
      void this.roost.groups.ready.then(() => store.keepReads()).catch(() => undefined)
    // What asks the relays waits until the cached groups are on screen: a reload paints what this
    // device holds first, without the relays' answers (and their signatures) in the way.
    void Promise.all([this.roost.groups.ready.catch(() => undefined), profilesRead])
      .then(() => {
        this.loaded = true
        this.changed()
      })
      .then(afterNextPaint)
      .then(() => {
        if (this.closing) return
        this.painted = true
        void this.verifier.load()
        this.learnMedia()
        void this.checkRelayList()
        void this.loadNotifyLevels()
      })
    if (typeof window !== 'undefined') {
      window.addEventListener('pagehide', this.onPageHide)
      document.addEventListener('visibilitychange', this.onHide)
    }
  }

  /** Learns where the configured relays and the groups' relays keep their media. */
  private learnMedia(): void {
    if (!this.painted) return
    this.media.learn([...this.relays, ...this.roost.groups.groups().map((g) => g.key.relay)])
  }

  /** Asks the configured relays for the user's NIP-65 list, so Settings can offer one when none. */
  private notifySyncFor?: NotifySync
  private get notifySync(): NotifySync {
    this.notifySyncFor ??= new NotifySync({
      pubkey: this.session.pubkey,
      signer: this.session.signer,
      pool: () => this.pool,
      relays: () => this.relays,
    })
    return this.notifySyncFor
  }

  private async checkRelayList(): Promise<void> {
    const found = await this.pool
      .fetch(this.relays, [{ kinds: [RELAY_LIST_KIND], authors: [this.session.pubkey], limit: 1 }], {
        timeout: 8000,
      })
      .catch(() => undefined)
    if (!found || this.relayList === 'published') return
    this.relayList = found.length > 0 ? 'published' : 'none'
    this.changed()
  }

  async publishRelayList(): Promise<Answer> {
    try {
      const results = await this.roost.publishRelayList([...this.relays])
      if (!results.some((r) => r.ok))
        return { ok: false, message: results.map((r) => `${r.relay}: ${r.message}`).join('; ') }
      this.relayList = 'published'
      void this.marks.setRelays(this.relays)
      this.changed()
      return { ok: true, message: 'Relay list published.' }
    } catch (err) {
      return toAnswer(err)
    }
  }

  private profileRelays(): string[] {
    const groupRelays = this.roost.groups.groups().map((g) => g.key.relay)
    return [...new Set([...this.relays, ...groupRelays])]
  }

  private syncGroups(): void {
    const current = new Set(this.roost.groups.groups())
    for (const [group, adapter] of this.adapters) {
      if (!current.has(group)) {
        adapter.close()
        this.adapters.delete(group)
      }
    }
    for (const group of current) {
      if (this.adapters.has(group)) continue
      const adapter = new GroupAdapter(
        group,
        this.session.pubkey,
        () => this.marks,
        (code) => this.retryJoin(group.key.toString(), code),
        () =>
          this.roost.groups
            .groupList()
            .entries.find((e) => e.id === group.key.id.value && safeNormalize(e.relay) === group.key.relay)
            ?.name,
        () => this.connection.offline,
        () => this.publicMeta.get(group.key.relay, group.key.id.value, !group.metadata),
        () => this.notifyLevels[group.key.toString()] ?? 'all',
        () => this.roost.groups.remove(group.key),
        this.drafts,
        (filters) => this.roost.pool.fetch([group.key.relay], filters, { timeout: 8000 }),
        () => this.roost.pool.relayClocks.ahead(group.key.relay),
      )
      adapter.subscribe(() => this.changed())
      group.subscribe((e) => {
        if (e.type === 'incoming') this.maybeNotify(group, e.event)
      })
      this.adapters.set(group, adapter)
    }
    this.learnMedia()
    this.changed()
  }

  private maybeNotify(group: Group, event: NostrEvent): void {
    if (!this.settings.notifications || typeof Notification === 'undefined') return
    if (Notification.permission !== 'granted' || document.visibilityState !== 'hidden') return
    if (event.pubkey === this.session.pubkey || !NOTIFY_KINDS.has(event.kind)) return
    if (event.created_at < this.startedAt) return
    const mentioned = mentionsPubkey(event, this.session.pubkey)
    if (!notifies(this.notifyLevels[group.key.toString()] ?? 'all', mentioned)) return
    const name = cleanName(group.metadata?.name ?? '') || group.key.id.value
    const who = this.profiles.get(event.pubkey)?.name ?? 'New message'
    try {
      new Notification(mentioned ? `${who} mentioned you in ${name}` : `${who} in ${name}`, {
        body: this.readable(quoteFreeText(event)).slice(0, 160),
        tag: group.key.toString(),
      })
    } catch {
      // Some platforms only allow notifications from a service worker.
    }
  }

  /** Content with NIP-27 mentions as `@name`, for a notification's plain text. */
  private readable(content: string): string {
    if (!content.includes('1')) return content
    return parseContent(content)
      .map((s) => (s.type === 'mention' ? `@${this.profiles.get(s.pubkey)?.name ?? 'someone'}` : s.raw))
      .join('')
  }

  private changed(): void {
    this.snap = undefined
    for (const l of this.listeners) l()
  }

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  snapshot = (): AppSnapshot => {
    if (this.snap) return this.snap
    const groups = [...this.adapters.values()].map((a) => a.summary())
    this.snap = {
      session: { pubkey: this.session.pubkey, method: this.session.method, nsec: this.session.nsec },
      loaded: this.loaded,
      groups,
      totalUnread: titleCount(groups),
      relays: this.relays,
      relayList: this.relayList,
      settings: this.settings,
      mediaServers: this.media.known(),
      auth: { ...this.auth },
      connection: this.connection.current,
      readStateKept: !(this.store instanceof MemoryEventStore),
    }
    return this.snap
  }

  group(key: string): GroupAdapter | undefined {
    const g = this.roost.groups.group(key)
    return g ? this.adapters.get(g) : undefined
  }

  search(text: string, groupKey?: string, opts: { cacheOnly?: boolean } = {}): Promise<SearchAnswer> {
    const where = groupKey === undefined ? this.roost.groups : this.roost.groups.group(groupKey)
    if (!where) return Promise.resolve({ ok: false, message: 'That group is not open here.' })
    return searchMessages(
      where,
      text,
      (key) => this.group(key)?.summary().name ?? key,
      opts.cacheOnly ? { relays: false } : {},
    )
  }

  profile(pubkey: string): Profile | undefined {
    return pubkey ? this.profiles.get(pubkey) : undefined
  }

  profilesVersion = (): number => this.profiles.changes

  preview(input: string): Promise<GroupPreview> {
    return fetchPreview(this.roost.pool, (relay) => this.roost.groups.relayKey(relay), input)
  }

  refreshProfile(pubkey: string): void {
    if (pubkey) this.profiles.refresh(pubkey)
  }

  async join(input: string, code?: string): Promise<JoinAnswer> {
    let ref: GroupReference
    try {
      ref = GroupReference.parse(input.trim())
    } catch (err) {
      return { ok: false, message: `That is not a group link or code: ${toAnswer(err).message}` }
    }
    const key = ref.key().toString()
    if (this.connection.offline) return { ok: false, message: OFFLINE_MESSAGE }
    try {
      const group = await this.roost.groups.join(ref, code?.trim() ? { code: code.trim() } : {})
      return membershipAnswer(group, key)
    } catch (err) {
      return { ...toAnswer(err), key: this.roost.groups.group(key) ? key : undefined }
    }
  }

  private async retryJoin(key: string, code?: string): Promise<Answer> {
    if (this.connection.offline) return { ok: false, message: OFFLINE_MESSAGE }
    try {
      const group = await this.roost.groups.join(key, code ? { code } : {})
      return membershipAnswer(group, key)
    } catch (err) {
      return toAnswer(err)
    }
  }

  watchForks(key: string, fn: (report: ForkReport) => void): () => void {
    return watchForks(this.roost, key, fn)
  }

  async leave(key: string): Promise<Answer> {
    if (this.connection.offline) return { ok: false, message: OFFLINE_MESSAGE }
    try {
      await this.roost.groups.leave(key)
      // A group left is never painted again from this device's last view of it.
      forgetPrepaint(browserStorage())
      return { ok: true, message: 'You left the group.' }
    } catch (err) {
      return toAnswer(err)
    }
  }

  markAllRead(): void {
    for (const g of this.roost.groups.groups()) this.adapters.get(g)?.markAllRead()
  }

  /** Drops a group from this device and the user's 10009 without a 9022 (refused, removed). */
  async forget(key: string): Promise<Answer> {
    if (this.connection.offline) return { ok: false, message: OFFLINE_MESSAGE }
    try {
      await this.roost.groups.remove(key)
      // A group left is never painted again from this device's last view of it.
      forgetPrepaint(browserStorage())
      return { ok: true, message: 'Removed from your list.' }
    } catch (err) {
      return toAnswer(err)
    }
  }

  async browse(relay: string): Promise<BrowseEntry[]> {
    const url = normalizeRelayUrl(relay)
    const info = await this.roost.pool.relayInfo(url).catch(() => undefined)
    const relayKey = this.roost.groups.relayKey(url) ?? info?.self ?? info?.pubkey
    const events = await this.roost.pool.fetch(
      [url],
      [{ kinds: [KINDS.metadata], ...(relayKey ? { authors: [relayKey] } : {}), limit: 500 }],
      { timeout: 6000 },
    )
    const listed: BrowseEntry[] = []
    const seen = new Set<string>()
    for (const e of events.sort((a, b) => b.created_at - a.created_at)) {
      let meta: GroupMetadata
      try {
        meta = GroupMetadata.parse(e)
      } catch {
        continue
      }
      if (meta.hidden || seen.has(meta.id)) continue
      seen.add(meta.id)
      const joined = this.roost.groups.group(new GroupKey(url, meta.id))
      listed.push({
        id: meta.id,
        relay: url,
        name: cleanName(meta.name ?? '') || cleanName(meta.id),
        about: meta.about === undefined ? undefined : tameMarks(meta.about),
        picture: meta.picture,
        closed: meta.closed,
        private: meta.private,
        joined: joined !== undefined && joined.membership.status === 'member',
      })
      this.publicMeta.remember(url, e)
    }
    const roles = await this.rolesOn(
      url,
      relayKey,
      listed.map((g) => g.id),
    ).catch(() => new Map<string, 'admin' | 'member'>())
    const out = listed.map((g) => {
      const role = roles.get(g.id)
      return role ? { ...g, role } : g
    })
    return browseOrder(out, (ids) => this.groupOrigins(url, ids))
  }

  /**
   * What the user is in groups `ids` on `relay` by the relay's own lists (39001, 39002): someone the
   * operator or an admin added never sent a join request, and a private group's lists need AUTH,
   * answered here when the relay asked for it.
   */
  private async rolesOn(
    url: string,
    relayKey: string | undefined,
    ids: readonly string[],
  ): Promise<Map<string, 'admin' | 'member'>> {
    if (ids.length === 0) return new Map()
    const { pool } = this.roost
    if (pool.authState(url) === 'challenged') await pool.authenticate(url).catch(() => false)
    const filter = {
      kinds: [KINDS.admins, KINDS.members],
      '#d': [...ids],
      ...(relayKey ? { authors: [relayKey] } : {}),
    }
    const events = await pool.fetch([url], [filter], { timeout: 6000 })
    return rolesFromLists(events, this.session.pubkey, relayKey)
  }

  groupOrigins(relay: string, ids: readonly string[]): Promise<Record<string, GroupOrigin>> {
    return this.origins.origins(relay, ids).catch(() => ({}))
  }

  async createGroup(
    relay: string,
    fields: { name: string; about?: string; private: boolean; closed: boolean; parent?: string },
  ): Promise<JoinAnswer> {
    if (this.connection.offline) return { ok: false, message: OFFLINE_MESSAGE }
    try {
      const group = await this.roost.groups.create(relay, {
        name: fields.name,
        ...(fields.about ? { about: fields.about } : {}),
        private: fields.private,
        closed: fields.closed,
        ...(fields.parent ? { parent: fields.parent } : {}),
      })
      return { ok: true, message: 'Group created.', key: group.key.toString() }
    } catch (err) {
      return toAnswer(err)
    }
  }

  async setProfile(profile: Profile): Promise<Answer> {
    const content = JSON.stringify({
      name: profile.name ?? '',
      display_name: profile.name ?? '',
      ...(profile.picture ? { picture: profile.picture } : {}),
      ...(profile.about ? { about: profile.about } : {}),
    })
    try {
      const event = await this.session.signer.signEvent({
        kind: 0,
        created_at: Math.floor(Date.now() / 1000),
        tags: [],
        content,
      })
      this.profiles.ingest(event)
      void this.store.add(event).catch(() => undefined)
      const results = await this.roost.pool.publish(this.relays, event)
      const ok = results.some((r) => r.ok)
      return ok
        ? { ok: true, message: 'Profile published.' }
        : { ok: false, message: results.map((r) => `${r.relay}: ${r.message}`).join('; ') }
    } catch (err) {
      return toAnswer(err)
    }
  }

  async upload(
    file: File,
    relay: string,
    onProgress?: (sent: number, total: number) => void,
  ): Promise<ImetaFields> {
    const server = this.settings.blossomServer || (await this.media.serverFor(relay))
    return uploadFile(file, this.session.signer, server, onProgress)
  }

  setSettings(patch: Partial<Settings>): void {
    this.settings = { ...this.settings, ...patch }
    if (patch.readStateLocalOnly !== undefined) void this.marks.setLocalOnly(patch.readStateLocalOnly)
    localStorage.setItem(settingsKey(this.session.pubkey), JSON.stringify(this.settings))
    this.changed()
  }

  setNotifyLevel(key: string, level: NotifyLevel): void {
    this.notifyLevels = { ...this.notifyLevels, [key]: level }
    saveNotifyLevels(this.session.pubkey, this.notifyLevels)
    setLocalChangeAt(this.session.pubkey, Math.floor(Date.now() / 1000))
    void this.notifySync.save(this.notifyLevels).catch(() => undefined)
    for (const a of this.adapters.values()) if (a.key === key) a.marksChanged()
    this.changed()
  }

  /** The levels kept with the account (NIP-78), unless this device changed one since. */
  private async loadNotifyLevels(): Promise<void> {
    const remote = await this.notifySync.load()
    if (!remote || remote.at < localChangeAt(this.session.pubkey)) return
    this.notifyLevels = remote.levels
    saveNotifyLevels(this.session.pubkey, this.notifyLevels)
    for (const a of this.adapters.values()) a.marksChanged()
    this.changed()
  }

  addRelay(url: string): Answer {
    const normalized = safeNormalize(url)
    if (!normalized)
      return { ok: false, message: 'A relay URL starts with wss:// (or ws:// for a local relay).' }
    if (!this.relays.includes(normalized)) {
      this.relays = [...this.relays, normalized]
      saveRelays(this.relays)
      this.applyRelays()
      this.learnMedia()
      this.changed()
    }
    return { ok: true, message: '' }
  }

  /** Relays changed in Settings take effect at once: the group list and read state move now. */
  private applyRelays(): void {
    void this.roost.setRelays(this.relays).catch(() => undefined)
    void this.marks.setRelays(this.relays)
  }

  removeRelay(url: string): void {
    if (this.relays.length <= 1) return
    this.relays = this.relays.filter((r) => r !== url)
    saveRelays(this.relays)
    this.applyRelays()
    this.changed()
  }

  async signOut(): Promise<void> {
    // What was typed in this account's boxes does not stay on a device it signed out of.
    await this.close()
    this.drafts.clearAll()
    this.onSignOut()
  }

  async close(): Promise<void> {
    this.closing = true
    if (typeof window !== 'undefined') {
      window.removeEventListener('pagehide', this.onPageHide)
      document.removeEventListener('visibilitychange', this.onHide)
    }
    for (const u of this.unsubs) u()
    this.connection.close()
    for (const a of this.adapters.values()) a.close()
    this.drafts.flush()
    this.profiles.close()
    // The read state flushes through the pool and saves to the store, so it closes first.
    await this.marks.close().catch(() => undefined)
    await this.roost.close()
    this.pool.close()
    this.session.close()
  }
}

/** localStorage, when the browser lets this page have it. */
function browserStorage(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage
  } catch {
    return undefined
  }
}

function safeNormalize(url: string): string | undefined {
  try {
    return normalizeRelayUrl(url)
  } catch {
    return undefined
  }
}

/** What a join that waits for an admin says: the relay kept the request for the group's admins. */
function requestSentText(group: Pick<Group, 'metadata' | 'key'>): string {
  const name = cleanName(group.metadata?.name ?? '') || group.key.id.value
  return `Request sent — an admin of ${name} must approve it.`
}

function membershipAnswer(group: Group, key: string): JoinAnswer {
  const m = group.membership
  if (m.status === 'refused') return { ok: false, message: m.reason, key }
  if (m.status === 'pending') return { ok: true, message: requestSentText(group), key, pending: true }
  return { ok: true, message: 'You are a member.', key }
}

/** Opens the cache and the client for a signed-in session. */
export async function createRoostApp(session: OpenSession, opts: { onSignOut: () => void }): Promise<AppApi> {
  const store = await openStore(session.pubkey)
  const app = new RoostApp(session, store, opts.onSignOut)
  app.start()
  if (session.name) void app.setProfile({ name: session.name })
  return app
}
