import { InvalidReferenceError } from './errors'
import { GroupId } from './group-id'
import { normalizeRelayUrl } from './relay-url'

/**
 * A group's identity: the normalized relay URL plus the id. The same id on another relay is
 * another group (a fork). Its string form `<relay-url>'<id>` keys stores, registries and read
 * state; nothing should be keyed by the bare id.
 *
 * @example
 * const key = new GroupKey('WSS://Groups.Example.com/', 'general')
 * key.toString()                                  // "wss://groups.example.com'general"
 * GroupKey.parse(key.toString()).equals(key)      // true
 */
export class GroupKey {
  /** The normalized relay URL. */
  readonly relay: string
  /** The group id on that relay. */
  readonly id: GroupId

  /**
   * @throws {InvalidRelayUrlError} or {InvalidGroupIdError} for bad parts.
   */
  constructor(relay: string, id: GroupId | string) {
    this.relay = normalizeRelayUrl(relay)
    this.id = GroupId.parse(id)
  }

  /**
   * Inverts {@link GroupKey.toString}: splits at the first `'` (relay URLs never contain one).
   * A scheme-less relay means `wss://`.
   * @throws {InvalidReferenceError} (`bad-group-code`) without a `'`; {InvalidRelayUrlError} or
   * {InvalidGroupIdError} for a bad part.
   * @example GroupKey.parse("wss://groups.example.com'general").id.value // 'general'
   */
  static parse(s: string): GroupKey {
    if (typeof s !== 'string')
      throw new InvalidReferenceError('bad-group-code', 'a group key must be a string')
    const at = s.indexOf("'")
    if (at < 0)
      throw new InvalidReferenceError('bad-group-code', `"${s}" is not a group key (<relay-url>'<id>)`)
    return new GroupKey(s.slice(0, at), s.slice(at + 1))
  }

  /** `<relay-url>'<id>`. @example String(key) // "wss://groups.example.com'general" */
  toString(): string {
    return `${this.relay}'${this.id.value}`
  }

  /** Same relay and same id. @example a.equals(b) */
  equals(other: GroupKey): boolean {
    return other instanceof GroupKey && other.relay === this.relay && other.id.value === this.id.value
  }
}
