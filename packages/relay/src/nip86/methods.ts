// The NIP-86 methods this relay answers, named as the NIP spells them, over the operator's lists.
import { isIP } from 'node:net'
import { isHex64 } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools'
import { type Bans, plainIp } from '../bans'
import type { EventStore, ListName, StoreTransaction } from '../store/store'

/** A call the relay refuses: bad parameters, or something an operator may not do. */
export class Nip86Error extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'Nip86Error'
  }
}

/** What the methods act on: the store, the lists' copy, and who is beyond their reach. */
export interface Nip86Context {
  readonly store: EventStore
  readonly bans: Bans
  /** The relay's own key and the operators: never banned, never off an allow list. */
  isExempt(pubkey: string): boolean
}

type Method = (ctx: Nip86Context, params: readonly unknown[]) => Promise<unknown>

/** One write to a list (`note` undefined: the entry is removed). */
interface Change {
  list: ListName
  value: string
  note?: string
}

/** Reports read for `listeventsneedingmoderation`, newest first. */
const REPORTS_READ = 500
const MAX_NOTE = 1000

function pubkeyParam(v: unknown): string {
  if (!isHex64(v)) throw new Nip86Error('invalid: the first parameter must be a 32-byte hex public key')
  return v
}
function eventIdParam(v: unknown): string {
  if (!isHex64(v)) throw new Nip86Error('invalid: the first parameter must be a 32-byte hex event id')
  return v
}
function textParam(v: unknown, what: string, max: number, optional = false): string {
  if (v === undefined && optional) return ''
  if (typeof v !== 'string') throw new Nip86Error(`invalid: ${what} must be a string`)
  if (v.length > max) throw new Nip86Error(`invalid: ${what} is longer than ${max} characters`)
  if (v.includes('\u0000')) throw new Nip86Error(`invalid: ${what} holds a NUL character`)
  return v
}
const reasonParam = (v: unknown) => textParam(v, 'the reason', MAX_NOTE, true)
function kindParam(v: unknown): string {
  const n = typeof v === 'string' && /^\d{1,5}$/.test(v) ? Number(v) : v
  if (!Number.isSafeInteger(n) || (n as number) < 0 || (n as number) > 65535)
    throw new Nip86Error('invalid: the parameter must be a kind number from 0 to 65535')
  return String(n)
}
function ipParam(v: unknown): string {
  if (typeof v !== 'string' || isIP(v) === 0)
    throw new Nip86Error('invalid: the parameter must be an IP address')
  return plainIp(v)
}
function iconParam(v: unknown): string {
  const s = textParam(v, 'the icon URL', 2048)
  let u: URL | undefined
  try {
    u = new URL(s)
  } catch {}
  if (u?.protocol !== 'https:' && u?.protocol !== 'http:')
    throw new Nip86Error('invalid: the icon must be an http(s) URL')
  return s
}

/**
 * Writes list entries in one store unit (with `extra`, e.g. deleting a banned event), updating the
 * in-memory copy as the unit runs, so every unit after it is checked against the new lists. A unit
 * that fails leaves the store unchanged, and the copy is read again from it.
 */
async function write(
  ctx: Nip86Context,
  changes: Change[],
  extra?: (tx: StoreTransaction) => Promise<void>,
  group?: string,
): Promise<true> {
  try {
    await ctx.store.unit(group, async (tx) => {
      for (const c of changes) {
        if (c.note === undefined) await tx.dropListed(c.list, c.value)
        else await tx.putListed(c.list, c.value, c.note)
      }
      await extra?.(tx)
      for (const c of changes) ctx.bans.set(c.list, c.value, c.note)
    })
  } catch (err) {
    ctx.bans.load(await ctx.store.lists())
    throw err
  }
  return true
}

/** A list as NIP-86 returns it: `[{ <field>: value, reason? }]`. */
function listed(ctx: Nip86Context, list: ListName, field: 'pubkey' | 'id' | 'ip') {
  return ctx.bans
    .entries(list)
    .map(({ value, note }) => (note ? { [field]: value, reason: note } : { [field]: value }))
}

/**
 * The events members reported (NIP-56 kind 1984 in their groups) that are still stored and that
 * no operator has banned or allowed since: `[{ id, reason }]`, the newest report's type and text.
 */
async function needingModeration(ctx: Nip86Context): Promise<{ id: string; reason?: string }[]> {
  const out = new Map<string, string>()
  for (const row of await ctx.store.query({ kinds: [1984] }, REPORTS_READ)) {
    const report = JSON.parse(row.json) as NostrEvent
    for (const t of report.tags) {
      const id = t[1]
      if (t[0] !== 'e' || !isHex64(id) || out.has(id)) continue
      if (ctx.bans.has('allowed-event', id) || ctx.bans.has('banned-event', id)) continue
      if (!(await ctx.store.get(id))) continue
      out.set(id, [t[2], report.content].filter((s) => s !== undefined && s !== '').join(': '))
    }
  }
  return [...out].map(([id, reason]) => (reason ? { id, reason } : { id }))
}

function notExempt(ctx: Nip86Context, pubkey: string): void {
  if (ctx.isExempt(pubkey))
    throw new Nip86Error("invalid: the relay's own key and the operators cannot be banned or listed")
}

/**
 * Every method, by its NIP-86 name. Each takes the request's `params` and resolves to its
 * `result`, or rejects with {@link Nip86Error}.
 *
 * @example
 * await METHODS.banpubkey(ctx, [pubkey, 'spam']) // true
 * await METHODS.listbannedpubkeys(ctx, []) // [{ pubkey, reason: 'spam' }]
 */
export const METHODS: Readonly<Record<string, Method>> = {
  supportedmethods: async () => Object.keys(METHODS).filter((m) => m !== 'supportedmethods'),

  banpubkey: async (ctx, [pk, reason]) => {
    const pubkey = pubkeyParam(pk)
    notExempt(ctx, pubkey)
    const note = reasonParam(reason)
    return write(ctx, [
      { list: 'banned-pubkey', value: pubkey, note },
      { list: 'allowed-pubkey', value: pubkey },
    ])
  },
  unbanpubkey: async (ctx, [pk]) => write(ctx, [{ list: 'banned-pubkey', value: pubkeyParam(pk) }]),
  listbannedpubkeys: async (ctx) => listed(ctx, 'banned-pubkey', 'pubkey'),
  allowpubkey: async (ctx, [pk, reason]) => {
    const pubkey = pubkeyParam(pk)
    notExempt(ctx, pubkey)
    const note = reasonParam(reason)
    return write(ctx, [
      { list: 'allowed-pubkey', value: pubkey, note },
      { list: 'banned-pubkey', value: pubkey },
    ])
  },
  unallowpubkey: async (ctx, [pk]) => write(ctx, [{ list: 'allowed-pubkey', value: pubkeyParam(pk) }]),
  listallowedpubkeys: async (ctx) => listed(ctx, 'allowed-pubkey', 'pubkey'),

  listeventsneedingmoderation: async (ctx) => needingModeration(ctx),
  allowevent: async (ctx, [eid, reason]) => {
    const id = eventIdParam(eid)
    const note = reasonParam(reason)
    return write(ctx, [
      { list: 'allowed-event', value: id, note },
      { list: 'banned-event', value: id },
    ])
  },
  banevent: async (ctx, [eid, reason]) => {
    const id = eventIdParam(eid)
    const note = reasonParam(reason)
    const row = await ctx.store.get(id)
    if (row && ctx.isExempt(row.pubkey))
      throw new Nip86Error("invalid: events of the relay's own key and of the operators cannot be banned")
    // Under the event's group lock, so a copy of it sent meanwhile is stored before or refused after.
    return write(
      ctx,
      [
        { list: 'banned-event', value: id, note },
        { list: 'allowed-event', value: id },
      ],
      async (tx) => {
        await tx.deleteIds([id])
      },
      row?.grp ?? undefined,
    )
  },
  unbanevent: async (ctx, [eid]) => write(ctx, [{ list: 'banned-event', value: eventIdParam(eid) }]),
  listbannedevents: async (ctx) => listed(ctx, 'banned-event', 'id'),

  changerelayname: async (ctx, [name]) =>
    write(ctx, [{ list: 'relay-info', value: 'name', note: textParam(name, 'the name', 256) }]),
  changerelaydescription: async (ctx, [text]) =>
    write(ctx, [
      { list: 'relay-info', value: 'description', note: textParam(text, 'the description', 8192) },
    ]),
  changerelayicon: async (ctx, [url]) =>
    write(ctx, [{ list: 'relay-info', value: 'icon', note: iconParam(url) }]),

  allowkind: async (ctx, [k]) => {
    const kind = kindParam(k)
    return write(ctx, [
      { list: 'allowed-kind', value: kind, note: '' },
      { list: 'disallowed-kind', value: kind },
    ])
  },
  disallowkind: async (ctx, [k]) => {
    const kind = kindParam(k)
    return write(ctx, [
      { list: 'disallowed-kind', value: kind, note: '' },
      { list: 'allowed-kind', value: kind },
    ])
  },
  listallowedkinds: async (ctx) => ctx.bans.entries('allowed-kind').map((e) => Number(e.value)),
  listdisallowedkinds: async (ctx) => ctx.bans.entries('disallowed-kind').map((e) => Number(e.value)),

  blockip: async (ctx, [ip, reason]) => {
    const addr = ipParam(ip)
    return write(ctx, [{ list: 'blocked-ip', value: addr, note: reasonParam(reason) }])
  },
  unblockip: async (ctx, [ip]) => write(ctx, [{ list: 'blocked-ip', value: ipParam(ip) }]),
  listblockedips: async (ctx) => listed(ctx, 'blocked-ip', 'ip'),
}

/** Runs one call: the method by name, or a {@link Nip86Error} for a name this relay does not know. */
export function callMethod(ctx: Nip86Context, method: unknown, params: readonly unknown[]): Promise<unknown> {
  if (typeof method !== 'string' || !Object.hasOwn(METHODS, method))
    return Promise.reject(new Nip86Error(`unsupported method: ${String(method).slice(0, 64)}`))
  return (METHODS[method] as Method)(ctx, params)
}
