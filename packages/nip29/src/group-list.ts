import type { EventTemplate, NostrEvent } from 'nostr-tools'
import { GroupKey } from './group-key'
import { KINDS } from './kinds'
import { tryNormalizeRelayUrl } from './relay-url'
import { checkEvent } from './state-event'
import { nowSeconds } from './template'

/**
 * One group of a 10009 list: `["group", id, relay, name?]`.
 * @example list.upsert({ id: 'general', relay: 'wss://groups.example.com', name: 'General' })
 */
export interface GroupListEntry {
  /** The group id. */
  id: string
  /** The normalized relay URL. */
  relay: string
  /** A name to show before the group's metadata arrives. */
  name?: string
}

/**
 * The key a `group` tag names, or `undefined` when it lacks a usable id or relay. Its relay URL is
 * parsed once here: a list is read at every start, and no answer is remembered in this package.
 */
function keyOf(tag: readonly string[]): GroupKey | undefined {
  if (tag[0] !== 'group') return undefined
  try {
    return new GroupKey(tag[2] as string, tag[1] as string)
  } catch {
    return undefined // a relay or id that is not usable
  }
}

/**
 * The user's kind 10009 "simple groups" list (NIP-51), edited losslessly:
 * every edit returns a new list that changes only the `group` entry it names (matched by id and
 * normalized relay) and keeps `r` tags, unknown tags, unusable `group` tags and the (encrypted)
 * private `content` exactly as they were.
 *
 * `group` tags with 1–3 values are read; one without a usable relay is kept but is not an entry,
 * since a group is only identified with its relay.
 *
 * @example
 * const list = GroupList.parse(latest10009).upsert({ id: 'general', relay: 'wss://groups.example.com' })
 * const template = list.toTemplate()   // sign, publish to the user's write relays
 */
export class GroupList {
  /** The list's tags, verbatim. */
  readonly tags: readonly (readonly string[])[]
  /** The private part (NIP-44 to self), untouched. */
  readonly content: string
  /** The parsed event's `created_at` (0 for {@link GroupList.empty}). */
  readonly createdAt: number
  /** The groups, one per key, in list order. */
  readonly entries: readonly GroupListEntry[]

  /** The entries' keys, in list order. */
  readonly #keys: readonly GroupKey[]

  private constructor(tags: string[][], content: string, createdAt: number) {
    // Frozen, so a caller cannot edit a list in place and bypass the lossless edits.
    this.tags = Object.freeze(tags.map((t) => Object.freeze(t)))
    this.content = content
    this.createdAt = createdAt
    const seen = new Set<string>()
    const entries: GroupListEntry[] = []
    const keys: GroupKey[] = []
    for (const tag of tags) {
      const key = keyOf(tag)
      if (key === undefined || seen.has(key.toString())) continue
      seen.add(key.toString())
      keys.push(key)
      const name = tag[3]
      const { relay } = key
      const id = key.id.value
      entries.push(Object.freeze(name !== undefined && name !== '' ? { id, relay, name } : { id, relay }))
    }
    this.entries = Object.freeze(entries)
    this.#keys = keys
  }

  /**
   * @throws {InvalidEventError} for an event that is not kind 10009.
   * @example GroupList.parse(event).keys()
   */
  static parse(event: NostrEvent): GroupList {
    const e = checkEvent(event, KINDS.groupList)
    return new GroupList(
      e.tags.map((t) => [...t]),
      e.content,
      e.createdAt,
    )
  }

  /** A list with no tags, for a user without a 10009. @example GroupList.empty().upsert(entry) */
  static empty(): GroupList {
    return new GroupList([], '', 0)
  }

  /** @example list.has(ref.key()) */
  has(key: GroupKey): boolean {
    return this.entries.some((e) => e.relay === key.relay && e.id === key.id.value)
  }

  /** The entry for `key`. @example list.get(key)?.name */
  get(key: GroupKey): GroupListEntry | undefined {
    return this.entries.find((e) => e.relay === key.relay && e.id === key.id.value)
  }

  /** Every entry's key, in list order. @example for (const key of list.keys()) registry.open(key) */
  keys(): GroupKey[] {
    return [...this.#keys]
  }

  /** The relays of the `r` tags, normalized and deduplicated. @example list.relays() */
  relays(): string[] {
    const out: string[] = []
    for (const tag of this.tags) {
      const relay = tag[0] === 'r' ? tryNormalizeRelayUrl(tag[1]) : undefined
      if (relay !== undefined && !out.includes(relay)) out.push(relay)
    }
    return out
  }

  /**
   * Adds a group, or sets the name of the one with the same key (keeping its name when
   * `entry.name` is absent). A new group is appended, with an `["r", relay]` tag when the list
   * has none for its relay.
   * @throws {InvalidGroupIdError} or {InvalidRelayUrlError} for a bad entry.
   * @example list.upsert({ id: 'general', relay: 'wss://groups.example.com', name: 'General' })
   */
  upsert(entry: GroupListEntry): GroupList {
    const key = new GroupKey(entry.relay, entry.id)
    const tags = this.tags.map((t) => [...t])
    const target = key.toString()
    const at = tags.findIndex((t) => keyOf(t)?.toString() === target)
    if (at >= 0) {
      const tag = tags[at] as string[]
      if (entry.name !== undefined && entry.name !== '') tag[3] = entry.name
    } else {
      const tag = ['group', key.id.value, key.relay]
      if (entry.name !== undefined && entry.name !== '') tag.push(entry.name)
      tags.push(tag)
      if (!tags.some((t) => t[0] === 'r' && tryNormalizeRelayUrl(t[1]) === key.relay))
        tags.push(['r', key.relay])
    }
    return new GroupList(tags, this.content, this.createdAt)
  }

  /**
   * Removes every `group` tag naming `key`; nothing else changes (the `r` tags stay).
   * @example list.remove(key)
   */
  remove(key: GroupKey): GroupList {
    const target = key.toString()
    return new GroupList(
      this.tags.filter((t) => keyOf(t)?.toString() !== target).map((t) => [...t]),
      this.content,
      this.createdAt,
    )
  }

  /**
   * The union with another device's list (removals made elsewhere cannot be told from a stale list, so they are not guessed).
   * This list's tags, names and content come first; the other's missing groups and `r` relays
   * are appended, a missing name is taken from it, and an empty content is filled from it.
   * Over entries, merge is commutative and idempotent.
   * @example const merged = local.merge(GroupList.parse(newerFromRelay))
   */
  merge(other: GroupList): GroupList {
    let out: GroupList = this
    for (const entry of other.entries) {
      const key = new GroupKey(entry.relay, entry.id)
      const mine = out.get(key)
      if (mine === undefined || (mine.name === undefined && entry.name !== undefined)) out = out.upsert(entry)
    }
    const tags = out.tags.map((t) => [...t])
    const relays = out.relays()
    for (const relay of other.relays()) if (!relays.includes(relay)) tags.push(['r', relay])
    return new GroupList(
      tags,
      this.content !== '' ? this.content : other.content,
      Math.max(this.createdAt, other.createdAt),
    )
  }

  /**
   * The kind 10009 template. `createdAt` defaults to now, but at least one second after the
   * list it edits, so the new version replaces it.
   * @example await signer.signEvent(list.toTemplate())
   */
  toTemplate(createdAt?: number): EventTemplate {
    return {
      kind: KINDS.groupList,
      content: this.content,
      tags: this.tags.map((t) => [...t]),
      created_at: createdAt ?? Math.max(nowSeconds(), this.createdAt + 1),
    }
  }
}
