import type { NostrEvent } from 'nostr-tools'
import { isHex64 } from './hex'
import { KINDS } from './kinds'
import { checkStateEvent, type StateParseOptions } from './state-event'

/**
 * A group's kind 39004 LiveKit participants: who is in the audio/video room now.
 *
 * @example
 * GroupParticipants.parse(event).pubkeys.length // people in the call
 */
export class GroupParticipants {
  /** The group id. */
  readonly id: string
  /** The key that signed this 39004 (the relay's). */
  readonly relayKey: string
  /** When the relay signed it, Unix seconds. */
  readonly createdAt: number
  /** Distinct participant pubkeys, in the relay's order. */
  readonly pubkeys: string[]

  private constructor(id: string, relayKey: string, createdAt: number, pubkeys: string[]) {
    this.id = id
    this.relayKey = relayKey
    this.createdAt = createdAt
    this.pubkeys = pubkeys
  }

  /**
   * @throws {InvalidEventError} for another kind, a missing `d` tag, or (with `opts.relayKey`)
   * another author.
   * @example GroupParticipants.parse(event).contains(me)
   */
  static parse(event: NostrEvent, opts?: StateParseOptions): GroupParticipants {
    const e = checkStateEvent(event, KINDS.participants, opts)
    const pubkeys: string[] = []
    for (const tag of e.tags) {
      const pk = tag[1]
      if (tag[0] === 'participant' && isHex64(pk) && !pubkeys.includes(pk)) pubkeys.push(pk)
    }
    return new GroupParticipants(e.id, e.pubkey, e.createdAt, pubkeys)
  }

  /** @example participants.contains(pk) */
  contains(pubkey: string): boolean {
    return this.pubkeys.includes(pubkey)
  }
}
