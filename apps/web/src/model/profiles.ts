/**
 * Names and pictures (kind 0) of the people in the open groups: read from the local store at
 * once, then asked from the relays in small batches, and followed live afterwards (one
 * subscription per relay, renewed as people are added), so a new name shows without a reload.
 * Only the newest kind 0 per person counts.
 *
 * What is known is also kept, parsed, as one stored value (`restore` reads it back): a start
 * reads it with the cached groups, in one read the boot store starts with the page's first
 * script, so the cached messages paint with their authors' names, offline or before a slow relay
 * answers, instead of npubs until each person's kind 0 is looked up.
 */
import type { EventStore, RelayPool } from '@roost/client'
import type { NostrEvent } from 'nostr-tools'
import { cleanName, tameMarks } from '../lib/names'
import type { Profile } from './types'

const BATCH_MS = 150
const MAX_AUTHORS = 100
/** People followed live at most (the most recently seen); the others are still fetched once. */
const MAX_LIVE = 500
/** The live subscription's id on each relay (a new filter replaces the old one under the same id). */
const LIVE_ID = 'profiles'
/** The store value holding the profiles known, for the next start. */
export const SAVED_PROFILES = 'web.profiles'
/** Profiles kept for the next start at most: the most recently received. */
const MAX_SAVED = 2000

/** One profile as kept in the store value. */
interface SavedProfile {
  pubkey: string
  at: number
  name?: string
  picture?: string
  about?: string
}

const optional = (v: unknown): v is string | undefined => v === undefined || typeof v === 'string'

function savedProfile(v: unknown): SavedProfile | undefined {
  if (typeof v !== 'object' || v === null) return undefined
  const r = v as Record<string, unknown>
  if (typeof r.pubkey !== 'string' || !/^[0-9a-f]{64}$/.test(r.pubkey)) return undefined
  if (typeof r.at !== 'number' || !Number.isSafeInteger(r.at)) return undefined
  if (!optional(r.name) || !optional(r.picture) || !optional(r.about)) return undefined
  return r as unknown as SavedProfile
}

function parseProfile(event: NostrEvent): Profile | undefined {
  try {
    const raw = JSON.parse(event.content) as Record<string, unknown>
    const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim().slice(0, 200) : undefined)
    // A name is shown everywhere (and in notifications): cleaned once, here (`lib/names.ts`).
    const name = (v: unknown) => (typeof v === 'string' ? cleanName(v) || undefined : undefined)
    const about = str(raw.about)
    return {
      name: name(raw.display_name) ?? name(raw.name),
      picture: str(raw.picture),
      about: about === undefined ? undefined : tameMarks(about),
    }
  } catch {
    return undefined
  }
}

export class ProfileBook {
  private readonly profiles = new Map<string, { profile: Profile; at: number }>()
  private readonly asked = new Set<string>()
  private queue = new Set<string>()
  private timer: ReturnType<typeof setTimeout> | undefined
  /** A write of the profiles is queued (in a microtask: a batch of kind 0s is written once). */
  private saving = false
  private version = 0
  private closed = false
  /** The live subscriptions start here: nothing published after the first fetch is missed by a renewal. */
  private readonly since = Math.floor(Date.now() / 1000)
  /** The open live subscriptions, by relay. */
  private readonly live = new Map<string, { close(): void }>()

  constructor(
    private readonly pool: RelayPool,
    private readonly store: EventStore,
    private readonly relays: () => string[],
    private readonly onChange: () => void,
  ) {}

  get changes(): number {
    return this.version
  }

  get(pubkey: string): Profile | undefined {
    if (!this.asked.has(pubkey)) {
      this.asked.add(pubkey)
      this.queue.add(pubkey)
      this.timer ??= setTimeout(() => void this.flush(), BATCH_MS)
    }
    return this.profiles.get(pubkey)?.profile
  }

  /** Asks the relays again for one person's profile (their card is open: show what is current). */
  refresh(pubkey: string): void {
    this.asked.delete(pubkey)
    this.get(pubkey)
  }

  /** A kind 0 from anywhere (our own publish, a relay): keeps it when it is the newest. */
  ingest(event: NostrEvent): void {
    if (event.kind !== 0) return
    const known = this.profiles.get(event.pubkey)
    if (known && known.at >= event.created_at) return
    const profile = parseProfile(event)
    if (!profile) return
    // Last in the map: the most recently received are the ones kept for the next start.
    this.profiles.delete(event.pubkey)
    this.profiles.set(event.pubkey, { profile, at: event.created_at })
    this.version++
    this.onChange()
    if (!this.saving) {
      // Written at once, not when the page hides (a reload may not wait for that write).
      this.saving = true
      queueMicrotask(() => this.save())
    }
  }

  /**
   * Takes the profiles kept by the last start (`SAVED_PROFILES`); resolves once they are in, and
   * never rejects (without them, names come from the store's kind 0s and the relays as before).
   */
  async restore(): Promise<void> {
    const saved = await this.store.getValue<unknown>(SAVED_PROFILES).catch(() => undefined)
    if (!Array.isArray(saved) || this.closed) return
    let taken = 0
    for (const item of saved) {
      const s = savedProfile(item)
      if (!s) continue
      const known = this.profiles.get(s.pubkey)
      if (known && known.at >= s.at) continue
      const profile: Profile = { name: s.name, picture: s.picture, about: s.about }
      this.profiles.set(s.pubkey, { profile, at: s.at })
      taken++
    }
    if (taken === 0) return
    this.version++
    this.onChange()
  }

  private save(): void {
    if (!this.saving) return
    this.saving = false
    const kept: SavedProfile[] = []
    for (const [pubkey, { profile, at }] of [...this.profiles].slice(-MAX_SAVED)) {
      const s: SavedProfile = { pubkey, at }
      if (profile.name !== undefined) s.name = profile.name
      if (profile.picture !== undefined) s.picture = profile.picture
      if (profile.about !== undefined) s.about = profile.about
      kept.push(s)
    }
    void this.store.setValue(SAVED_PROFILES, kept).catch(() => undefined)
  }

  private async flush(): Promise<void> {
    this.timer = undefined
    const authors = [...this.queue].slice(0, MAX_AUTHORS)
    for (const a of authors) this.queue.delete(a)
    if (this.queue.size > 0) this.timer = setTimeout(() => void this.flush(), BATCH_MS)
    if (authors.length === 0 || this.closed) return
    const cached = await this.store.query({ kinds: [0], authors }).catch(() => [])
    for (const e of cached) this.ingest(e)
    const fetched = await this.pool
      .fetch(this.relays(), [{ kinds: [0], authors }], { timeout: 4000 })
      .catch(() => [])
    for (const e of fetched) this.keep(e)
    if (!this.closed) this.follow()
  }

  private keep(event: NostrEvent): void {
    this.ingest(event)
    void this.store.add(event).catch(() => undefined)
  }

  /** (Re)opens the live subscription on each relay for everyone asked about so far; closes it where a relay left the list. */
  private follow(): void {
    const authors = [...this.asked].slice(-MAX_LIVE)
    const relays = new Set(this.relays())
    for (const [relay, sub] of this.live) {
      if (relays.has(relay)) continue
      sub.close()
      this.live.delete(relay)
    }
    for (const relay of relays) {
      const sub = this.pool.subscribe(
        relay,
        [{ kinds: [0], authors, since: this.since }],
        { onevent: (e) => this.keep(e) },
        { id: LIVE_ID },
      )
      this.live.set(relay, sub)
    }
  }

  close(): void {
    this.closed = true
    this.save()
    if (this.timer) clearTimeout(this.timer)
    for (const sub of this.live.values()) sub.close()
    this.live.clear()
  }
}
