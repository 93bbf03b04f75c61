import type { EventStore, ListEntry, ListName } from './store/store'

/** The relay's name, description and icon as the operator set them (NIP-86 `changerelay*`). */
export interface RelayInfoOverrides {
  name?: string
  description?: string
  icon?: string
}

/** What a refusal needs to know of an event. */
interface EventLike {
  readonly id: string
  readonly pubkey: string
  readonly kind: number
}

/**
 * The operator's lists (NIP-86) in memory, for the checks every EVENT, AUTH, upload, call token
 * and connection passes: a banned key is refused everywhere, a banned event is never stored again,
 * an allow list (while it holds any key) admits only its keys, allowed and disallowed kinds, and
 * blocked addresses. The store keeps the lists; this copy is loaded at start, updated by this
 * process's own writes as they run, and read again when another process changed them.
 *
 * Exempt from every list: the relay's own key and the operators (`--admin`).
 *
 * @example
 * const bans = new Bans((pk) => pk === relayKey)
 * bans.load(await store.lists())
 * if (bans.isBanned(pubkey)) refuse()
 * bans.refusal(event) // 'blocked: you are banned from this relay' | undefined
 */
export class Bans {
  private lists = new Map<ListName, Map<string, string>>()
  private readonly listeners: (() => void)[] = []

  constructor(private readonly exempt: (pubkey: string) => boolean) {}

  /** Replaces every list with what the store holds. */
  load(entries: readonly ListEntry[]): void {
    const next = new Map<ListName, Map<string, string>>()
    for (const e of entries) {
      const m = next.get(e.list) ?? new Map<string, string>()
      next.set(e.list, m)
      m.set(e.value, e.note)
    }
    this.lists = next
    this.changed()
  }

  /** Records one write of this process (`note` undefined: removed), as its unit runs. */
  set(list: ListName, value: string, note: string | undefined): void {
    const m = this.lists.get(list) ?? new Map<string, string>()
    this.lists.set(list, m)
    if (note === undefined) m.delete(value)
    else m.set(value, note)
    this.changed()
  }

  /** Called after every change (a write here, or the lists read again). */
  onChange(listener: () => void): void {
    this.listeners.push(listener)
  }

  /** Whether `value` is on `list`. */
  has(list: ListName, value: string): boolean {
    return this.lists.get(list)?.has(value) ?? false
  }

  /** The entries of one list, in the order they were added. */
  entries(list: ListName): { value: string; note: string }[] {
    return [...(this.lists.get(list) ?? [])].map(([value, note]) => ({ value, note }))
  }

  /** True for a banned key (never for the relay's own key or an operator). */
  isBanned(pubkey: string): boolean {
    return !this.exempt(pubkey) && this.has('banned-pubkey', pubkey)
  }

  /** True for a blocked address (IPv4-mapped IPv6 addresses are compared as IPv4). */
  ipBlocked(ip: string): boolean {
    const m = this.lists.get('blocked-ip')
    return m !== undefined && m.size > 0 && m.has(plainIp(ip))
  }

  /**
   * Why the operator's lists refuse this event (a NIP-01 `blocked:` text), or undefined: a banned
   * author, an author off a non-empty allow list, a banned id, a disallowed kind, or a kind off a
   * non-empty list of allowed kinds.
   */
  refusal(event: EventLike): string | undefined {
    if (this.exempt(event.pubkey)) return undefined
    if (this.has('banned-pubkey', event.pubkey)) return 'blocked: you are banned from this relay'
    const allowed = this.lists.get('allowed-pubkey')
    if (allowed && allowed.size > 0 && !allowed.has(event.pubkey))
      return "blocked: only keys on this relay's allow list may publish here"
    if (this.has('banned-event', event.id)) return 'blocked: this event was banned by the relay operator'
    const kind = String(event.kind)
    if (this.has('disallowed-kind', kind)) return `blocked: kind ${kind} is not accepted here`
    const kinds = this.lists.get('allowed-kind')
    if (kinds && kinds.size > 0 && !kinds.has(kind)) return `blocked: kind ${kind} is not accepted here`
    return undefined
  }

  /** The relay's name, description and icon as the operator set them. */
  get info(): RelayInfoOverrides {
    const m = this.lists.get('relay-info')
    const out: RelayInfoOverrides = {}
    for (const field of ['name', 'description', 'icon'] as const) {
      const v = m?.get(field)
      if (v !== undefined) out[field] = v
    }
    return out
  }

  private changed(): void {
    for (const l of this.listeners) l()
  }
}

/**
 * Keeps `bans` current with the store: when another process changed the lists (or the fan-out
 * reconnected), reads them again, keeping only the newest read when several overlap.
 *
 * @example
 * followLists(store, bans, log)
 */
export function followLists(store: EventStore, bans: Bans, log: (line: string) => void): void {
  let reads = 0
  store.onListsChanged(() => {
    const mine = ++reads
    store.lists().then(
      (entries) => {
        if (mine === reads) bans.load(entries)
      },
      (err) => log(`error reading the operator's lists: ${(err as Error).message}`),
    )
  })
}

/**
 * An upload gate (`true`, or the reason to refuse) that refuses a banned key before asking `gate`.
 *
 * @example
 * mayUpload: refuseBanned(engine.bans, uploadGate(engine, 'invited'))
 */
export function refuseBanned(
  bans: Bans,
  gate: (pubkey: string) => Promise<true | string>,
): (pubkey: string) => Promise<true | string> {
  return (pubkey) =>
    bans.isBanned(pubkey) ? Promise.resolve('blocked: you are banned from this relay') : gate(pubkey)
}

/** An address as the lists keep it: `::ffff:10.0.0.1` is `10.0.0.1`, IPv6 lower-cased. */
export function plainIp(ip: string): string {
  const v4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip)
  return v4 ? (v4[1] as string) : ip.toLowerCase()
}
