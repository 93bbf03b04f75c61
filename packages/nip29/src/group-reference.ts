import * as nip19 from 'nostr-tools/nip19'
import { InvalidArgumentError, InvalidReferenceError } from './errors'
import { GroupId } from './group-id'
import { GroupKey } from './group-key'
import { isHex64 } from './hex'
import { KINDS } from './kinds'
import { encodeGroupNaddr, readInvite, withInvite } from './naddr'
import { normalizeRelayUrl, tryNormalizeRelayUrl } from './relay-url'

/** The parts of a {@link GroupReference}. @example new GroupReference({ id: 'g', relay: 'wss://r.example' }) */
export interface GroupReferenceInit {
  /** The group id. */
  id: GroupId | string
  /** The group's relay URL. */
  relay: string
  /** An invite code to join with. */
  invite?: string
  /** The relay's public key, when known (to check the state it signs). */
  relayKey?: string
}

/**
 * What a user pastes to join a group, parsed:
 * - `naddr1…` (with or without `nostr:`), whose kind must be 39000 and which must carry a relay
 *   hint; its pubkey (the relay's key) is kept as `relayKey`;
 * - the group codes `host'id`, `wss://host'id`, `ws://host:port'id` (a scheme-less host means
 *   `wss://`), and a bare `wss://host` meaning the group `_`;
 * - any of these followed by `?invite=<code>` (percent-encoded; split off before decoding);
 * - a web link whose last path segment is such an naddr (`https://njump.me/naddr1…?invite=…`).
 *
 * @example
 * const ref = GroupReference.parse('naddr1qq…?invite=welcome')
 * ref.key().toString()        // "wss://groups.example.com'general"
 * id.joinRequest({ code: ref.invite })
 */
export class GroupReference {
  /** The group id. */
  readonly id: GroupId
  /** The normalized relay URL. */
  readonly relay: string
  /** An invite code to join with, when the reference carries one. */
  readonly invite?: string
  /** The relay's pubkey from the naddr, which signs the group's state events. */
  readonly relayKey?: string

  /**
   * @throws {InvalidGroupIdError}, {InvalidRelayUrlError} or {InvalidArgumentError} for bad parts.
   * @example new GroupReference({ id: 'general', relay: 'wss://groups.example.com', invite: 'x' })
   */
  constructor(init: GroupReferenceInit) {
    this.id = GroupId.parse(init.id)
    this.relay = normalizeRelayUrl(init.relay)
    if (init.invite !== undefined && init.invite !== '') this.invite = init.invite
    if (init.relayKey !== undefined) {
      if (!isHex64(init.relayKey))
        throw new InvalidArgumentError('relayKey', 'relayKey must be 64 lowercase hex')
      this.relayKey = init.relayKey
    }
  }

  /**
   * @throws {InvalidReferenceError} whose `reason` names what is wrong.
   * @example GroupReference.parse("groups.example.com'general").relay // 'wss://groups.example.com'
   */
  static parse(input: string): GroupReference {
    if (typeof input !== 'string')
      throw new InvalidReferenceError('empty', 'a group reference must be a string')
    let text = input.trim()
    if (text === '') throw new InvalidReferenceError('empty', 'the group reference is empty')
    const nostrUri = /^nostr:/i.test(text)
    if (nostrUri) text = text.slice(6)
    const head = text.split('?')[0] as string
    if (nostrUri || /^(naddr|npub|nsec|note|nprofile|nevent)1[a-z0-9]+$/i.test(head)) return parseNaddr(text)
    const link = /^https?:\/\/[^/]+\/(?:[^?#]*\/)?(naddr1[a-z0-9]+)(\?[^#]*)?/i.exec(text)
    if (link) return parseNaddr(`${link[1]}${link[2] ?? ''}`)
    return parseGroupCode(text)
  }

  /** The group's identity. @example registry.group(ref.key()) */
  key(): GroupKey {
    return new GroupKey(this.relay, this.id)
  }

  /**
   * The `naddr1…` of this group, with `?invite=` unless `invite: false`.
   * @throws {InvalidArgumentError} without a relay key (pass `relayKey`), or for an id or relay
   * longer than an naddr holds.
   * @example ref.toNaddr({ invite: false, relayKey: metadata.relayKey })
   */
  toNaddr(opts?: { invite?: boolean; relayKey?: string }): string {
    const relayKey = opts?.relayKey ?? this.relayKey
    if (relayKey === undefined) {
      throw new InvalidArgumentError('relayKey', "an naddr needs the relay's key: pass relayKey")
    }
    return encodeGroupNaddr(
      this.id.value,
      this.relay,
      relayKey,
      opts?.invite === false ? undefined : this.invite,
    )
  }

  /**
   * The group code `<relay-url>'<id>`, with `?invite=` unless `invite: false`.
   * @example ref.toCode() // "wss://groups.example.com'general?invite=welcome"
   */
  toCode(opts?: { invite?: boolean }): string {
    return withInvite(this.key().toString(), opts?.invite === false ? undefined : this.invite)
  }
}

function parseNaddr(text: string): GroupReference {
  const q = text.indexOf('?')
  const bech = q < 0 ? text : text.slice(0, q)
  const invite = q < 0 ? undefined : readInvite(text.slice(q + 1))
  let decoded: ReturnType<typeof nip19.decode>
  try {
    decoded = nip19.decode(bech)
  } catch (cause) {
    throw new InvalidReferenceError('bad-bech32', `"${bech.slice(0, 24)}…" is not valid bech32`, { cause })
  }
  if (decoded.type !== 'naddr') {
    throw new InvalidReferenceError('not-naddr', `a ${decoded.type} is not a group reference (need an naddr)`)
  }
  const { kind, identifier, pubkey, relays } = decoded.data
  if (kind !== KINDS.metadata) {
    throw new InvalidReferenceError(
      'wrong-kind',
      `this naddr points at kind ${kind}, not a group (kind 39000)`,
    )
  }
  const hints = relays ?? []
  if (hints.length === 0) {
    throw new InvalidReferenceError(
      'missing-relay',
      'this naddr has no relay hint, so there is no relay to join on',
    )
  }
  const relay = hints.map(tryNormalizeRelayUrl).find((r) => r !== undefined)
  if (relay === undefined) {
    throw new InvalidReferenceError('bad-relay', `this naddr's relay hint "${hints[0]}" is not a ws(s) URL`)
  }
  return build({ id: identifier, relay, invite, relayKey: pubkey })
}

const INVITE = '?invite='

function parseGroupCode(text: string): GroupReference {
  let body = text
  let invite: string | undefined
  const q = text.lastIndexOf(INVITE)
  if (q >= 0) {
    body = text.slice(0, q)
    invite = readInvite(text.slice(q + 1))
  }
  const at = body.indexOf("'")
  let relayPart: string
  let idPart: string
  if (at >= 0) {
    relayPart = body.slice(0, at)
    idPart = body.slice(at + 1)
  } else if (/^wss?:\/\//i.test(body)) {
    // The legacy spec: a bare relay URL names its `_` group.
    relayPart = body
    idPart = '_'
  } else {
    throw new InvalidReferenceError(
      'bad-group-code',
      `"${text}" is neither an naddr nor a group code like groups.example.com'general`,
    )
  }
  const relay = tryNormalizeRelayUrl(relayPart)
  if (relay === undefined) {
    throw new InvalidReferenceError(
      'bad-relay',
      `"${relayPart}" is not a relay (ws:// or wss:// URL, or a host)`,
    )
  }
  return build({ id: idPart, relay, invite })
}

function build(init: GroupReferenceInit): GroupReference {
  let id: GroupId
  try {
    id = GroupId.parse(init.id)
  } catch (cause) {
    throw new InvalidReferenceError('bad-id', `the group id is not usable: ${(cause as Error).message}`, {
      cause,
    })
  }
  return new GroupReference({ ...init, id })
}
