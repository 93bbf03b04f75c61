import type { EventTemplate, Filter, NostrEvent } from 'nostr-tools'
import {
  buildComment,
  buildJoinRequest,
  buildLeaveRequest,
  buildMessage,
  buildReaction,
  buildThread,
  type CommentOptions,
  type JoinOptions,
  type LeaveOptions,
  type MessageOptions,
  type ReactionTarget,
} from './content-builders'
import { buildOwnDeletion, type DeletionOptions, type OwnEventRef } from './deletions'
import { InvalidArgumentError, InvalidGroupIdError } from './errors'
import { assertHex64 } from './hex'
import { KINDS, STATE_KINDS } from './kinds'
import {
  buildCreateGroup,
  buildCreateInvite,
  buildDeleteEvent,
  buildDeleteGroup,
  buildEditMetadata,
  buildPin,
  buildPutUser,
  buildRemoveUser,
  type GroupMetadataFields,
  type InviteOptions,
} from './moderation-builders'
import { buildReport, type ReportOptions, type ReportTarget } from './reports'
import type { BuilderOptions, ModerationOptions } from './template'

// C0 controls, DEL and C1 controls: never part of a meaningful id, and they break logs and UIs.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

/**
 * A relay-chosen group id, and every filter and event template that names the group.
 *
 * The spec allows "a random string of any length" (the old `a-z0-9-_` rule is gone), so any
 * string is accepted once trimmed, if it is non-empty and has no control characters. It may even
 * contain `'`: a group code splits at the first `'`, and relay URLs never contain one.
 *
 * Builders return unsigned templates `{kind, content, tags, created_at}` whose first tag is
 * `["h", id]`; the caller signs and sends them to the group's relay.
 *
 * @example
 * const id = GroupId.parse('general')
 * const filters = [id.timelineFilter(100), id.stateFilter(relayKey)]
 * const template = id.message('hello', { previous: window.previousTag(me) })
 */
export class GroupId {
  /** The id, trimmed. */
  readonly value: string

  private constructor(value: string) {
    this.value = value
  }

  /**
   * @throws {InvalidGroupIdError} for non-strings, blank strings and control characters.
   * @example
   * GroupId.parse(' pizza-lovers ').value // 'pizza-lovers'
   */
  static parse(raw: string | GroupId): GroupId {
    if (raw instanceof GroupId) return raw
    if (typeof raw !== 'string') throw new InvalidGroupIdError(raw, 'a group id must be a string')
    const value = raw.trim()
    if (value === '') throw new InvalidGroupIdError(raw, 'a group id must not be empty')
    if (CONTROL.test(value))
      throw new InvalidGroupIdError(raw, 'a group id must not contain control characters')
    return new GroupId(value)
  }

  /** The id itself. @example `${GroupId.parse('x')}` // 'x' */
  toString(): string {
    return this.value
  }

  /** @example GroupId.parse('a').equals(GroupId.parse(' a ')) // true */
  equals(other: GroupId): boolean {
    return other instanceof GroupId && other.value === this.value
  }

  /** @example GroupId.parse('a').hTag() // ['h', 'a'] */
  hTag(): ['h', string] {
    return ['h', this.value]
  }

  /**
   * The group's timeline: every event with its `h` tag.
   * @example id.timelineFilter(100) // { '#h': ['general'], limit: 100 }
   */
  timelineFilter(limit: number): Filter {
    if (!Number.isInteger(limit) || limit < 0)
      throw new InvalidArgumentError('limit', 'limit must be an integer ≥ 0')
    return { '#h': [this.value], limit }
  }

  /**
   * The relay-signed state events 39000–39005, restricted to the relay's key once known.
   * Some relays (relay29) reject one filter mixing 39000–39003 with other kinds: use
   * {@link GroupId.stateFilters} for them.
   * @example id.stateFilter(relayKey) // { kinds: [39000, …, 39005], '#d': ['general'], authors: [relayKey] }
   */
  stateFilter(relayKey?: string): Filter {
    return this.#state([...STATE_KINDS], relayKey)
  }

  /**
   * The state as two filters, `[39000–39003]` and `[39004, 39005]`, which every relay accepts.
   * @example pool.subscribe(relay, [id.timelineFilter(100), ...id.stateFilters(relayKey)], handlers)
   */
  stateFilters(relayKey?: string): Filter[] {
    return [
      this.#state([KINDS.metadata, KINDS.admins, KINDS.members, KINDS.roles], relayKey),
      this.#state([KINDS.participants, KINDS.pins], relayKey),
    ]
  }

  #state(kinds: number[], relayKey: string | undefined): Filter {
    const filter: Filter = { kinds, '#d': [this.value] }
    if (relayKey !== undefined) filter.authors = [assertHex64(relayKey, 'relayKey')]
    return filter
  }

  /**
   * The put-user/remove-user events naming `me`, from which {@link foldMembership} decides.
   * @example id.membershipFilter(me) // { kinds: [9000, 9001], '#h': ['general'], '#p': [me] }
   */
  membershipFilter(me: string): Filter {
    return { kinds: [KINDS.putUser, KINDS.removeUser], '#h': [this.value], '#p': [assertHex64(me, 'me')] }
  }

  /**
   * A kind 9 chat message; replies carry `e` and NIP-C7 `q` tags.
   * @example id.message('same here', { replyTo: { id: parent.id, pubkey: parent.pubkey }, previous })
   */
  message(content: string, opts?: MessageOptions): EventTemplate {
    return buildMessage(this.value, content, opts)
  }

  /**
   * A kind 7 reaction with `e`, `p` and `k` tags. The third argument may be the options or, as a
   * shorthand, the `previous` tag.
   * @example id.reaction(message, '🔥', { previous })
   */
  reaction(target: ReactionTarget, emoji: string, opts?: BuilderOptions | readonly string[]): EventTemplate {
    const options: BuilderOptions | undefined = Array.isArray(opts)
      ? { previous: opts }
      : (opts as BuilderOptions)
    return buildReaction(this.value, target, emoji, options)
  }

  /**
   * A kind 9021 join request, with `["code", …]` when an invite code is given.
   * @example id.joinRequest({ code: reference.invite })
   */
  joinRequest(opts?: JoinOptions): EventTemplate {
    return buildJoinRequest(this.value, opts)
  }

  /**
   * A kind 9022 leave request; the argument may be the options or the reason.
   * @example id.leaveRequest({ reason: 'bye' })
   */
  leaveRequest(opts?: LeaveOptions | string): EventTemplate {
    return buildLeaveRequest(this.value, typeof opts === 'string' ? { reason: opts } : opts)
  }

  /**
   * A kind 11 thread (NIP-7D) with its `title`.
   * @example id.thread('Friday meetup', 'Who is in?', { previous })
   */
  thread(title: string, content: string, opts?: BuilderOptions): EventTemplate {
    return buildThread(this.value, title, content, opts)
  }

  /**
   * A kind 1111 comment (NIP-22) in a thread: `root` is the kind 11, `parent` the root itself or
   * the comment replied to.
   * @example id.comment(thread, thread, 'count me in', { relay: key.relay })
   */
  comment(root: NostrEvent, parent: NostrEvent, content: string, opts?: CommentOptions): EventTemplate {
    return buildComment(this.value, root, parent, content, opts)
  }

  /**
   * Kind 9000 put-user: adds `pubkey`, or replaces its roles (PUT semantics).
   * @example id.putUser(pubkey, ['moderator'])
   */
  putUser(pubkey: string, roles?: readonly string[], opts?: ModerationOptions): EventTemplate {
    return buildPutUser(this.value, pubkey, roles, opts)
  }

  /** Kind 9001 remove-user. @example id.removeUser(pubkey, { reason: 'spam' }) */
  removeUser(pubkey: string, opts?: ModerationOptions): EventTemplate {
    return buildRemoveUser(this.value, pubkey, opts)
  }

  /**
   * Kind 9002 edit-metadata: the full positive field set (the current spec replaces, and relays
   * that still patch then see every field). To change one field, start from the current state.
   * @example id.editMetadata({ ...metadata.toFields(), name: 'Pizza lovers' })
   */
  editMetadata(fields: GroupMetadataFields, opts?: ModerationOptions): EventTemplate {
    return buildEditMetadata(this.value, fields, opts)
  }

  /**
   * A NIP-09 kind 5 withdrawing your own event(s) (messages, reactions): `h`, one `e` per event,
   * one `k` per kind. Sign it with the events' author. Moderators use {@link GroupId.deleteEvent}.
   * @example id.deleteOwn(myReaction)
   */
  deleteOwn(events: OwnEventRef | readonly OwnEventRef[], opts?: DeletionOptions): EventTemplate {
    return buildOwnDeletion(this.value, events, opts)
  }

  /** Kind 9005 delete-event. @example id.deleteEvent(message.id) */
  deleteEvent(eventId: string, opts?: ModerationOptions): EventTemplate {
    return buildDeleteEvent(this.value, eventId, opts)
  }

  /**
   * Kind 9007 create-group. Relays disagree on the defaults of a new group: follow it with
   * {@link GroupId.editMetadata}.
   * @example [id.createGroup(), id.editMetadata({ name: 'General' })]
   */
  createGroup(opts?: ModerationOptions): EventTemplate {
    return buildCreateGroup(this.value, opts)
  }

  /** Kind 9008 delete-group. @example id.deleteGroup({ reason: 'archived' }) */
  deleteGroup(opts?: ModerationOptions): EventTemplate {
    return buildDeleteGroup(this.value, opts)
  }

  /**
   * Kind 9009 create-invite, one `code` tag per code, with the terms of `opts` (`uses`, `expiresAt`).
   * @example id.createInvite('welcome-2026', { uses: 25 })
   */
  createInvite(code: string | readonly string[], opts?: InviteOptions): EventTemplate {
    return buildCreateInvite(this.value, code, opts)
  }

  /**
   * Kind 1984 report (NIP-56) of a message or a person in this group.
   * @example id.report({ event: message }, { type: 'spam', reason: 'ads', previous })
   */
  report(target: ReportTarget, opts: ReportOptions): EventTemplate {
    return buildReport(this.value, target, opts)
  }

  /**
   * Kind 9010 update-pin-list. It carries the FULL ordered list (event ids as `e`, addresses
   * `<kind>:<pubkey>:<d>` as `a`), so pass every pin: `GroupPins.with(ref)` gives the list.
   * @example id.pin(pins.with(message.id))
   */
  pin(refs: string | readonly string[], opts?: ModerationOptions): EventTemplate {
    return buildPin(this.value, refs, opts)
  }
}
