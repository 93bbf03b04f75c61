import type { NostrEvent } from 'nostr-tools'
import { isHex64 } from './hex'
import { KINDS } from './kinds'
import { checkStateEvent, type StateParseOptions } from './state-event'

/**
 * One pinned item: an event id (`e`) or an address `<kind>:<pubkey>:<d>` (`a`).
 * @example pins.pins[0] // { type: 'e', value: 'ab…' }
 */
export interface GroupPin {
  /** `e` for an event id, `a` for an addressable event's address. */
  type: 'e' | 'a'
  /** The event id or address. */
  value: string
}

const ADDRESS = /^\d+:[0-9a-f]{64}:/

/**
 * A group's kind 39005 pinned events, in display order. Edit the list with {@link GroupPins.with}
 * and {@link GroupPins.without} and send the full result with `GroupId.pin` (kind 9010).
 *
 * @example
 * const pins = GroupPins.parse(event)
 * id.pin(pins.with(message.id))
 */
export class GroupPins {
  /** The group id. */
  readonly id: string
  /** The key that signed this 39005 (the relay's). */
  readonly relayKey: string
  /** When the relay signed it, Unix seconds. */
  readonly createdAt: number
  /** Every pin in order. */
  readonly pins: GroupPin[]

  private constructor(id: string, relayKey: string, createdAt: number, pins: GroupPin[]) {
    this.id = id
    this.relayKey = relayKey
    this.createdAt = createdAt
    this.pins = pins
  }

  /**
   * @throws {InvalidEventError} for another kind, a missing `d` tag, or (with `opts.relayKey`)
   * another author.
   * @example GroupPins.parse(event).ids
   */
  static parse(event: NostrEvent, opts?: StateParseOptions): GroupPins {
    const e = checkStateEvent(event, KINDS.pins, opts)
    const pins: GroupPin[] = []
    for (const tag of e.tags) {
      const value = tag[1]
      const ok =
        (tag[0] === 'e' && isHex64(value)) || (tag[0] === 'a' && value !== undefined && ADDRESS.test(value))
      if (ok && !pins.some((p) => p.value === value))
        pins.push({ type: tag[0] as 'e' | 'a', value: value as string })
    }
    return new GroupPins(e.id, e.pubkey, e.createdAt, pins)
  }

  /** The pinned event ids (`e` tags), in order. @example pins.ids.includes(message.id) */
  get ids(): string[] {
    return this.pins.filter((p) => p.type === 'e').map((p) => p.value)
  }

  /** The pinned addresses (`a` tags, `<kind>:<pubkey>:<d>`), in order. @example pins.addresses */
  get addresses(): string[] {
    return this.pins.filter((p) => p.type === 'a').map((p) => p.value)
  }

  /** Whether `ref` (an event id or address) is pinned. @example pins.has(message.id) */
  has(ref: string): boolean {
    return this.pins.some((p) => p.value === ref)
  }

  /** Every pin's value (ids and addresses), in order. @example id.pin(pins.refs()) */
  refs(): string[] {
    return this.pins.map((p) => p.value)
  }

  /** The refs with `ref` appended (unchanged when already pinned). @example id.pin(pins.with(eventId)) */
  with(ref: string): string[] {
    const refs = this.refs()
    return refs.includes(ref) ? refs : [...refs, ref]
  }

  /** The refs without `ref`. @example id.pin(pins.without(eventId)) */
  without(ref: string): string[] {
    return this.refs().filter((r) => r !== ref)
  }
}
