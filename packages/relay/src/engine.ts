import { randomBytes } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { bytesToHex } from '@noble/hashes/utils.js'
import type { EventTemplate, Filter, NostrEvent } from 'nostr-tools'
import { matchFilter } from 'nostr-tools/filter'
import { finalizeEvent, getEventHash, getPublicKey, verifyEvent } from 'nostr-tools/pure'
import type { WebSocket } from 'ws'
import { RelayError, RelayOptionError } from './errors'
import { addPending, applyEvent, dropMember } from './groups/apply'
import { type Acceptance, checkGroupEvent, groupOf, type IntakeContext, relayEvent } from './groups/intake'
import type { GroupRecord } from './groups/record'
import { renderState, STATE_KINDS } from './groups/render'
import { relink } from './groups/subgroups'
import { canSee, checkRead, type Reader } from './groups/visibility'
import { keptKey, randomId, secretKeyBytes } from './keys'
import { LIMITS } from './limits'
import type { RelayOptions } from './options'
import { PROFILES, type ProfilePolicy } from './profiles'
import { RateLimiter } from './rate-limit'
import { prefixed } from './reasons'
import type { CreateGroupOptions } from './relay'
import { EventDatabase, isAddressable, isEphemeral, type StoredRow } from './store/database'
import { parseMessage } from './wire'

interface Connection {
  ws: WebSocket
  challenge: string
  authed: Set<string>
  subs: Map<string, Filter[]>
  limiter: RateLimiter
  /** Answered the last heartbeat ping. */
  alive: boolean
  host: string
  remote: string
}

/** How an EVENT is answered: one OK, a NOTICE instead (groups_relay), or nothing (groups_relay no-ops). */
type Reply =
  | { type: 'ok'; ok: boolean; message: string }
  | { type: 'notice'; message: string }
  | { type: 'silent' }

const RING_SIZE = 50

function tagsOf(row: StoredRow): string[][] {
  return (JSON.parse(row.json) as NostrEvent).tags
}
/** Profiles, contacts, deletions, relay and group lists, DM relays, NIP-46 signer traffic, app data (NIP-RS). */
const DEFAULT_NON_GROUP_KINDS = [0, 3, 5, 10002, 10009, 10050, 24133, 30078]

/** The relay engine: the protocol rules wired to SQLite and sockets. One instance per `startRelay`. */
export class Engine {
  readonly policy: ProfilePolicy
  readonly db: EventDatabase
  readonly secret: Uint8Array
  readonly pubkey: string
  readonly ownerPubkey: string
  readonly clock: () => number
  readonly lateWindow: number | undefined
  readonly previousMinimum: number
  readonly nonGroupKinds: ReadonlySet<number>
  readonly groups = new Map<string, GroupRecord>()
  readonly rings = new Map<string, { id: string; pubkey: string }[]>()
  readonly connections = new Set<Connection>()
  readonly log: (line: string) => void
  readonly verify: (event: NostrEvent) => boolean
  url = ''

  constructor(readonly opts: RelayOptions) {
    this.policy = PROFILES[opts.profile ?? 'strict']
    if (!this.policy) throw new RelayOptionError(`unknown profile '${opts.profile}'`)
    const given = opts.secretKey === undefined ? undefined : secretKeyBytes(opts.secretKey)
    this.clock = opts.clock ?? (() => Math.floor(Date.now() / 1000))
    this.log = opts.log ?? (() => {})
    this.verify = opts.verifyEvent ?? verifyEvent
    let key: () => string = () => ''
    this.db = new EventDatabase(opts.db ?? ':memory:', () => key())
    const get = (k: string) => this.db.getMeta(k)
    const set = (k: string, v: string) => this.db.setMeta(k, v)
    this.secret = given ?? keptKey(get, set, 'secret_key')
    this.pubkey = getPublicKey(this.secret)
    key = () => this.pubkey
    this.ownerPubkey = this.policy.separateOwnerKey
      ? getPublicKey(keptKey(get, set, 'owner_key'))
      : this.pubkey
    this.lateWindow = opts.lateWindow ?? this.policy.lateWindow
    this.previousMinimum = opts.previousMinimum ?? this.policy.previous.minimum
    this.nonGroupKinds = new Set(opts.nonGroupKinds ?? DEFAULT_NON_GROUP_KINDS)
    for (const g of this.db.loadGroups()) this.groups.set(g.id, g)
  }

  now(): number {
    return this.clock()
  }

  // ---------- sockets ----------

  attach(ws: WebSocket, req: IncomingMessage): void {
    const rate = this.opts.rateLimit ?? { events: 200, perSeconds: 10 }
    const conn: Connection = {
      ws,
      challenge: bytesToHex(randomBytes(16)),
      authed: new Set(),
      subs: new Map(),
      limiter: new RateLimiter(rate.events, rate.perSeconds),
      alive: true,
      host: req.headers.host ?? '',
      remote: `${req.socket.remoteAddress}:${req.socket.remotePort}`,
    }
    this.connections.add(conn)
    this.log(`connect ${conn.remote}`)
    ws.on('message', (data, isBinary) => {
      try {
        const text = isBinary ? '' : data.toString()
        if (isBinary) this.send(conn, ['NOTICE', 'invalid: binary frames are not supported'])
        else this.onMessage(conn, text)
      } catch (err) {
        this.log(`error ${conn.remote} ${(err as Error).stack ?? err}`)
        this.send(conn, ['NOTICE', 'error: internal error'])
      }
    })
    ws.on('close', () => {
      this.connections.delete(conn)
      this.log(`disconnect ${conn.remote}`)
    })
    ws.on('error', () => ws.terminate())
    ws.on('pong', () => {
      conn.alive = true
    })
    this.send(conn, ['AUTH', conn.challenge])
  }

  send(conn: Connection, message: unknown[]): void {
    this.sendRaw(conn, JSON.stringify(message))
  }

  sendRaw(conn: Connection, text: string): void {
    if (conn.ws.readyState !== conn.ws.OPEN) return
    if (conn.ws.bufferedAmount > LIMITS.maxBufferedBytes) {
      this.log(`slow ${conn.remote}: closing`)
      conn.ws.close(1008, 'too slow to read')
      return
    }
    conn.ws.send(text)
  }

  onMessage(conn: Connection, text: string): void {
    const parsed = parseMessage(text)
    if (!parsed.ok) {
      const e = parsed.error
      if (e.answer === 'OK') this.send(conn, ['OK', e.eventId, false, e.reason])
      else if (e.answer === 'CLOSED') this.send(conn, ['CLOSED', e.subId, e.reason])
      else this.send(conn, ['NOTICE', e.reason])
      return
    }
    const m = parsed.message
    if (m.type === 'EVENT') this.onEvent(conn, m.event)
    else if (m.type === 'REQ') this.onReq(conn, m.subId, m.filters)
    else if (m.type === 'CLOSE') conn.subs.delete(m.subId)
    else this.onAuth(conn, m.event)
  }

  onAuth(conn: Connection, event: NostrEvent): void {
    const problem = this.authProblem(conn, event)
    if (problem) {
      this.send(conn, ['OK', event.id, false, problem])
      return
    }
    conn.authed.add(event.pubkey)
    this.log(`auth ${conn.remote} ${event.pubkey}`)
    this.send(conn, ['OK', event.id, true, ''])
  }

  /** NIP-42 checks of a kind 22242; undefined when it authenticates its pubkey. */
  authProblem(conn: Connection, event: NostrEvent): string | undefined {
    if (!this.verify(event)) return 'invalid: signature is invalid'
    if (event.kind !== 22242) return 'invalid: AUTH needs a kind 22242 event'
    const tag = (n: string) => event.tags.find((t) => t[0] === n)?.[1]
    if (tag('challenge') !== conn.challenge) return 'invalid: challenge mismatch'
    if (!this.relayTagMatches(tag('relay'), conn)) return 'invalid: relay tag does not name this relay'
    if (Math.abs(event.created_at - this.now()) > LIMITS.authWindow) return 'invalid: auth event expired'
    return undefined
  }

  relayTagMatches(relay: string | undefined, conn: Connection): boolean {
    if (!relay) return false
    try {
      const u = new URL(relay)
      if (u.protocol !== 'ws:' && u.protocol !== 'wss:') return false
      const hosts = new Set([conn.host.toLowerCase(), new URL(this.url).host])
      return hosts.has(u.host.toLowerCase())
    } catch {
      return false
    }
  }

  reader(conn: Connection): Reader {
    return { authed: conn.authed, relayKey: this.pubkey }
  }

  /** Drops connections that did not answer the previous ping (dead TCP peers), pings the rest. */
  heartbeat(): void {
    for (const conn of this.connections) {
      if (!conn.alive) {
        this.log(`timeout ${conn.remote}`)
        conn.ws.terminate()
        continue
      }
      conn.alive = false
      conn.ws.ping()
    }
  }

  // ---------- reads ----------

  onReq(conn: Connection, subId: string, filters: Filter[]): void {
    if (!conn.subs.has(subId) && conn.subs.size >= LIMITS.maxSubscriptions) {
      this.send(conn, [
        'CLOSED',
        subId,
        `blocked: too many subscriptions (at most ${LIMITS.maxSubscriptions})`,
      ])
      return
    }
    const reader = this.reader(conn)
    const refusal = checkRead(filters, reader, (id) => this.groups.get(id), this.policy)
    if (refusal) {
      conn.subs.delete(subId)
      this.send(conn, ['CLOSED', subId, refusal.reason])
      if (refusal.auth) this.send(conn, ['AUTH', conn.challenge])
      return
    }
    const sent = new Set<string>()
    const rows: StoredRow[] = []
    try {
      for (const f of filters) {
        for (const row of this.visibleRows(f, reader)) {
          if (sent.has(row.id)) continue
          sent.add(row.id)
          rows.push(row)
        }
      }
    } catch (err) {
      this.log(`error ${conn.remote} ${(err as Error).stack ?? err}`)
      conn.subs.delete(subId)
      this.send(conn, ['CLOSED', subId, 'error: the query failed'])
      return
    }
    conn.subs.set(subId, filters)
    const prefix = `["EVENT",${JSON.stringify(subId)},`
    for (const row of rows) this.sendRaw(conn, `${prefix}${row.json}]`)
    this.send(conn, ['EOSE', subId])
  }

  /** Stored events for one filter, visible to the reader, up to the filter's limit. */
  visibleRows(f: Filter, reader: Reader): StoredRow[] {
    const limit = Math.min(f.limit ?? LIMITS.defaultLimit, LIMITS.maxLimit)
    if (limit === 0) return []
    const out: StoredRow[] = []
    let offset = 0
    for (let page = 0; page < 20 && out.length < limit; page++) {
      const want = limit - out.length
      const rows = this.db.query(f, want, offset)
      offset += rows.length
      for (const row of rows) {
        const g = row.grp === null ? undefined : this.groups.get(row.grp)
        const event = row.kind === 9000 || row.kind === 9001 ? { kind: row.kind, tags: tagsOf(row) } : row
        if (canSee(event, g, reader, f, this.policy)) out.push(row)
      }
      if (rows.length < want) break
    }
    return out
  }

  broadcast(event: NostrEvent): void {
    const json = JSON.stringify(event)
    const gid =
      event.kind >= 39000 && event.kind <= 39005 ? event.tags.find((t) => t[0] === 'd')?.[1] : groupOf(event)
    const g = gid === undefined ? undefined : this.groups.get(gid)
    for (const conn of this.connections) {
      const reader = this.reader(conn)
      for (const [subId, filters] of conn.subs) {
        if (filters.some((f) => matchFilter(f, event) && canSee(event, g, reader, f, this.policy))) {
          this.sendRaw(conn, `["EVENT",${JSON.stringify(subId)},${json}]`)
        }
      }
    }
  }

  // ---------- writes ----------

  onEvent(conn: Connection, event: NostrEvent): void {
    let reply: Reply
    try {
      reply = this.accept(conn, event)
    } catch (err) {
      this.log(`error ${conn.remote} ${(err as Error).stack ?? err}`)
      reply = { type: 'ok', ok: false, message: 'error: internal error, the event was not stored' }
    }
    if (reply.type === 'notice') this.send(conn, ['NOTICE', reply.message])
    else if (reply.type === 'ok') {
      this.send(conn, ['OK', event.id, reply.ok, reply.ok ? reply.message : prefixed(reply.message)])
      if (!reply.ok && reply.message.startsWith('auth-required:')) this.send(conn, ['AUTH', conn.challenge])
    }
    for (const e of this.pendingBroadcasts.splice(0)) this.broadcast(e)
  }

  /** Runs an EVENT through every rule and, when accepted, ingests it. Returns how to answer. */
  accept(conn: Connection, event: NostrEvent): Reply {
    const refuse = (message: string): Reply => ({ type: 'ok', ok: false, message })
    if (!conn.limiter.take()) return refuse('rate-limited: slow down, too many events')
    if (!this.verify(event)) {
      return refuse(
        getEventHash(event) !== event.id
          ? 'invalid: id is computed incorrectly'
          : 'invalid: signature is invalid',
      )
    }
    if (event.kind === 22242) return refuse('invalid: AUTH events are sent with AUTH, not EVENT')
    if (this.policy.requireAuthForAll && event.pubkey !== this.pubkey) {
      if (conn.authed.size === 0) return refuse('auth-required: authentication is required for access')
      if (!conn.authed.has(event.pubkey))
        return refuse('restricted: you cannot publish events on behalf of others')
    }
    if (event.tags.some((t) => t[0] === '-' && t.length === 1) && !conn.authed.has(event.pubkey)) {
      if (conn.authed.size === 0)
        return refuse('auth-required: must be published by authenticated event author')
      return refuse('blocked: must be published by event author')
    }
    if (this.db.get(event.id)) return { type: 'ok', ok: true, message: 'duplicate: already have this event' }
    if (this.db.wasDeleted(event.id)) return refuse('blocked: this was deleted')
    if (this.deletedByAuthor(event)) return refuse('blocked: this event was deleted by its author')
    let verdict: Acceptance
    if (event.pubkey === this.pubkey) {
      verdict = { ok: true, followUps: [], group: groupOf(event), moderation: true }
    } else {
      const v = checkGroupEvent(event, this.intakeContext(conn), this.nonGroupKinds)
      if (!v.ok) {
        if (v.silent) return { type: 'silent' }
        if (v.notice) return { type: 'notice', message: v.reason }
        return refuse(v.reason)
      }
      verdict = v
    }
    if (event.kind === 5) {
      const refusal = this.checkDeletion(event)
      if (refusal) return refuse(refusal)
    }
    const outcome = this.ingest(event, verdict)
    if (outcome === 'stale') return refuse('duplicate: a newer version of this event is stored')
    return { type: 'ok', ok: true, message: verdict.message ?? '' }
  }

  pendingBroadcasts: NostrEvent[] = []

  intakeContext(conn: Connection | undefined): IntakeContext {
    return {
      policy: this.policy,
      relayKey: this.pubkey,
      now: this.now(),
      lateWindow: this.lateWindow,
      previousMinimum: this.previousMinimum,
      authed: conn?.authed ?? new Set(),
      group: (id) => this.groups.get(id),
      ring: (id) => this.ring(id),
      findEvent: (id) => {
        const row = this.db.get(id)
        return row ? { pubkey: row.pubkey, ...(row.grp !== null && { group: row.grp }) } : undefined
      },
      removedAnywhere: (pk) =>
        this.db
          .query({ kinds: [9001], '#p': [pk], limit: 1 }, 1)
          .some((r) => !r.json.includes('"self-removal"')),
    }
  }

  ring(groupId: string): { id: string; pubkey: string }[] {
    let ring = this.rings.get(groupId)
    if (!ring) {
      ring = this.db.ring(groupId, RING_SIZE)
      this.rings.set(groupId, ring)
    }
    return ring
  }

  deletedByAuthor(event: NostrEvent): boolean {
    if (this.db.query({ kinds: [5], authors: [event.pubkey], '#e': [event.id], limit: 1 }, 1).length > 0)
      return true
    if (isAddressable(event.kind)) {
      const d = event.tags.find((t) => t[0] === 'd')?.[1] ?? ''
      const address = `${event.kind}:${event.pubkey}:${d}`
      const dels = this.db.query({ kinds: [5], authors: [event.pubkey], '#a': [address], limit: 1 }, 1)
      if (dels.some((r) => r.created_at >= event.created_at)) return true
    }
    return false
  }

  /** NIP-09: a deletion may only name the author's own events (and, in pyramid, no old group messages). */
  checkDeletion(event: NostrEvent): string | undefined {
    const max = this.policy.maxDeleteAge
    if (max === undefined) return undefined
    for (const t of event.tags) {
      if (t[0] !== 'e' || !t[1]) continue
      const row = this.db.get(t[1])
      if (row && row.pubkey === event.pubkey && row.grp !== null && row.created_at < this.now() - max)
        return "blocked: can't delete very old group message"
    }
    return undefined
  }

  /**
   * Stores an accepted event and applies everything it causes, in one transaction: the group
   * transition, relay-made follow-ups, NIP-09 deletions, and regenerated 390xx state. Broadcasts are
   * queued in `pendingBroadcasts` so the sender gets its OK first.
   */
  ingest(event: NostrEvent, verdict: Acceptance): 'saved' | 'stale' | 'duplicate' {
    const touched = new Set<string>()
    return this.atomically(() => {
      const r = this.store(event)
      if (r !== 'saved') return r
      this.effects(event, verdict, touched)
      for (const id of touched) this.regenerate(id)
      return r
    })
  }

  /** Groups as they were before the running transaction changed them (undefined: absent). */
  private journal: Map<string, GroupRecord | undefined> | undefined

  /**
   * Runs `fn` in one SQLite transaction; if it throws, the in-memory groups, rings and queued
   * broadcasts are put back as well, so memory never disagrees with the database.
   */
  atomically<T>(fn: () => T): T {
    const journal = new Map<string, GroupRecord | undefined>()
    const queued = this.pendingBroadcasts.length
    this.journal = journal
    try {
      return this.db.transaction(fn)
    } catch (err) {
      for (const [id, g] of journal) {
        if (g) this.groups.set(id, g)
        else this.groups.delete(id)
      }
      this.rings.clear()
      this.pendingBroadcasts.length = queued
      throw err
    } finally {
      this.journal = undefined
    }
  }

  store(event: NostrEvent): 'saved' | 'stale' | 'duplicate' {
    if (isEphemeral(event.kind)) {
      this.pendingBroadcasts.push(event)
      return 'saved'
    }
    const r = this.db.insert(event)
    if (r !== 'saved') return r
    const gid = groupOf(event)
    if (gid !== undefined) {
      const ring = this.rings.get(gid)
      if (ring) {
        ring.unshift({ id: event.id, pubkey: event.pubkey })
        if (ring.length > RING_SIZE) ring.length = RING_SIZE
      }
    }
    this.pendingBroadcasts.push(event)
    return r
  }

  effects(event: NostrEvent, verdict: Acceptance, touched: Set<string>): void {
    if (event.kind === 5) this.applyDeletion(event)
    const gid = verdict.group ?? groupOf(event)
    if (gid !== undefined) {
      let g = this.groups.get(gid)
      if (verdict.moderation && (g || event.kind === 9007)) {
        const applied = applyEvent(g, event, this.policy)
        const targets = applied.deleteIds.filter(
          (id) => this.policy.deleteScope === 'any' || this.db.get(id)?.grp === gid,
        )
        if (targets.length > 0) {
          this.db.deleteIds(targets)
          this.db.rememberDeleted(targets, this.now())
          this.rings.delete(gid)
        }
        if (applied.deleteGroup) {
          const ids = this.db.deleteGroupEvents(gid, event.id)
          this.db.rememberDeleted(ids, this.now())
          this.rings.delete(gid)
        }
        if (this.policy.subgroups) {
          for (const other of relink(g, applied.record, (id) => this.groups.get(id))) {
            this.setGroup(other.id, other)
            touched.add(other.id)
          }
        }
        g = applied.record
        touched.add(gid)
      }
      if (g && verdict.pendingJoin) g = addPending(g, event.pubkey)
      if (g && verdict.dropSender) {
        g = dropMember(g, event.pubkey)
        touched.add(gid)
      }
      this.setGroup(gid, g)
    }
    for (const template of verdict.followUps) {
      const own = this.signOwn(template)
      if (this.store(own) === 'saved')
        this.effects(own, { ok: true, followUps: [], moderation: true }, touched)
    }
  }

  /**
   * Signs a relay-made event. A 9000/9001 gets a `created_at` after the newest 9000/9001 naming the
   * same user in the group, so "the latest one decides membership" never meets a tie.
   */
  signOwn(t: EventTemplate): NostrEvent {
    let createdAt = t.created_at
    if (t.kind === 9000 || t.kind === 9001) {
      const gid = t.tags.find((x) => x[0] === 'h')?.[1]
      const pks = t.tags.filter((x) => x[0] === 'p').map((x) => x[1] as string)
      if (gid !== undefined && pks.length > 0) {
        const last = this.db.query({ kinds: [9000, 9001], '#h': [gid], '#p': pks, limit: 1 }, 1)[0]
        if (last && last.created_at >= createdAt) createdAt = last.created_at + 1
      }
    }
    return finalizeEvent({ ...t, created_at: createdAt }, this.secret)
  }

  setGroup(id: string, g: GroupRecord | undefined): void {
    if (this.journal && !this.journal.has(id)) this.journal.set(id, this.groups.get(id))
    if (g) {
      this.groups.set(id, g)
      this.db.saveGroup(g)
    } else if (this.groups.has(id)) {
      this.groups.delete(id)
      this.db.dropGroup(id)
    }
  }

  applyDeletion(event: NostrEvent): void {
    const ids: string[] = []
    for (const t of event.tags) {
      if (t[0] === 'e' && t[1]) {
        const row = this.db.get(t[1])
        if (row && row.pubkey === event.pubkey && row.kind !== 5) ids.push(row.id)
      } else if (t[0] === 'a' && t[1]) {
        const [kind, pubkey, ...rest] = t[1].split(':')
        if (pubkey !== event.pubkey || !kind || !/^\d+$/.test(kind)) continue
        const filter: Filter = { kinds: [Number(kind)], authors: [pubkey], until: event.created_at }
        if (isAddressable(Number(kind))) filter['#d'] = [rest.join(':')]
        for (const row of this.db.query(filter, LIMITS.maxLimit)) ids.push(row.id)
      }
    }
    if (ids.length === 0) return
    this.db.deleteIds(ids)
    for (const gid of this.rings.keys()) this.rings.delete(gid)
  }

  /** Re-signs the group's 390xx events whose content changed; `created_at` strictly increases. */
  regenerate(id: string): void {
    const g = this.groups.get(id)
    if (!g || g.deleted) return
    for (const kind of STATE_KINDS) {
      const content = renderState(g, kind, this.policy, { relay: this.pubkey, owner: this.ownerPubkey })
      if (!content) continue
      const stored = this.db.latest(kind, this.pubkey, id)
      if (kind === 39005 && !stored && g.pins.length === 0) continue
      if (stored) {
        const old = JSON.parse(stored.json) as NostrEvent
        if (old.content === content.content && JSON.stringify(old.tags) === JSON.stringify(content.tags))
          continue
      }
      const createdAt = Math.max(this.now(), stored ? stored.created_at + 1 : 0)
      const event = finalizeEvent(
        { kind, created_at: createdAt, tags: content.tags, content: content.content },
        this.secret,
      )
      this.store(event)
    }
  }

  /** Signs and ingests relay-made events as one batch (the handle's createGroup and createInvite). */
  own(templates: EventTemplate[]): void {
    const touched = new Set<string>()
    this.atomically(() => {
      for (const t of templates) {
        const e = this.signOwn(t)
        if (this.store(e) === 'saved') this.effects(e, { ok: true, followUps: [], moderation: true }, touched)
      }
      for (const id of touched) this.regenerate(id)
    })
    for (const e of this.pendingBroadcasts.splice(0)) this.broadcast(e)
  }

  /** Stores events signed by others without the intake rules (demo history). */
  trusted(events: NostrEvent[]): void {
    this.db.transaction(() => {
      for (const e of events) this.store(e)
    })
    for (const e of this.pendingBroadcasts.splice(0)) this.broadcast(e)
  }

  createGroup(o: CreateGroupOptions): string {
    const id = o.id ?? randomId(12)
    const existing = this.groups.get(id)
    if (existing) throw new RelayError('group-exists', `group '${id}' already exists`)
    const now = this.now()
    const meta: string[][] = []
    if (o.name) meta.push(['name', o.name])
    if (o.picture) meta.push(['picture', o.picture])
    if (o.about) meta.push(['about', o.about])
    if (o.private) meta.push(['private'])
    else if (this.policy.patch9002) meta.push(['public'])
    if (o.restricted) meta.push(['restricted'])
    if (o.hidden) meta.push(['hidden'])
    if (o.closed) meta.push(['closed'])
    else if (this.policy.patch9002) meta.push(['open'])
    if (o.supportedKinds) meta.push(['supported_kinds', ...o.supportedKinds.map(String)])
    const templates = [relayEvent(9007, id, [], now), relayEvent(9002, id, meta, now)]
    for (const pk of o.admins ?? []) templates.push(relayEvent(9000, id, [['p', pk, 'admin']], now))
    for (const pk of o.members ?? []) {
      if (!(o.admins ?? []).includes(pk)) templates.push(relayEvent(9000, id, [['p', pk]], now))
    }
    this.own(templates)
    return id
  }

  createInvite(groupId: string, code?: string): string {
    const g = this.groups.get(groupId)
    if (!g || g.deleted) throw new RelayError('unknown-group', `group '${groupId}' doesn't exist`)
    const c = code ?? randomId(10)
    this.own([relayEvent(9009, groupId, [['code', c]], this.now())])
    return c
  }
}
