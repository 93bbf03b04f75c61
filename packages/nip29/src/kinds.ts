/**
 * The event kinds NIP-29 groups use (NIP-29, NIP-C7 chat, NIP-7D threads, NIP-22 comments,
 * NIP-25 reactions, NIP-51 simple groups list, NIP-09 deletions, Blossom and NIP-98 authorization). nostr-tools lacks 9010 and 39005, hence this table.
 *
 * @example
 * if (event.kind === KINDS.chat) render(event)
 */
export const KINDS = {
  /** NIP-09 deletion request: withdraws your own events. */
  deletion: 5,
  /** NIP-C7 chat message, the usual group message. */
  chat: 9,
  /** A short text note, which NIP-29 groups also carry. */
  note: 1,
  /** NIP-7D thread root (a title and a first post). */
  thread: 11,
  /** NIP-22 comment: a reply inside a thread. */
  comment: 1111,
  /** NIP-25 reaction (an emoji) to an event. */
  reaction: 7,
  /** Moderation: add a member, or set their roles. */
  putUser: 9000,
  /** Moderation: remove a member. */
  removeUser: 9001,
  /** Moderation: change the name, picture, flags, … */
  editMetadata: 9002,
  /** Moderation: delete an event from the group. */
  deleteEvent: 9005,
  /** Moderation: create a group. */
  createGroup: 9007,
  /** Moderation: delete a group. */
  deleteGroup: 9008,
  /** Moderation: create an invite code. */
  createInvite: 9009,
  /** Moderation: pin or unpin events. */
  pin: 9010,
  /** A user asks to join (with an invite code for a closed group). */
  joinRequest: 9021,
  /** A user leaves. */
  leaveRequest: 9022,
  /** NIP-56 report of an event or user, for the group's admins. */
  report: 1984,
  /** Relay-signed state: the group's metadata (name, picture, flags). */
  metadata: 39000,
  /** Relay-signed state: the admins and their roles. */
  admins: 39001,
  /** Relay-signed state: the member list. */
  members: 39002,
  /** Relay-signed state: the roles the group defines. */
  roles: 39003,
  /** Relay-signed state: who is in the group's call now. */
  participants: 39004,
  /** Relay-signed state: the pinned events, in order. */
  pins: 39005,
  /** NIP-51 simple groups list: the groups a user is in. */
  groupList: 10009,
  /** Blossom upload authorization. */
  blossomAuth: 24242,
  /** NIP-98 HTTP authorization. */
  httpAuth: 27235,
} as const

/**
 * The relay-signed group state kinds, 39000–39005, in order.
 *
 * @example
 * const isState = (STATE_KINDS as readonly number[]).includes(event.kind)
 */
export const STATE_KINDS = [
  KINDS.metadata,
  KINDS.admins,
  KINDS.members,
  KINDS.roles,
  KINDS.participants,
  KINDS.pins,
] as const

/**
 * The moderation kinds (9000–9020 are reserved for them); relays check the sender's role.
 *
 * @example
 * const needsAdmin = (MODERATION_KINDS as readonly number[]).includes(template.kind)
 */
export const MODERATION_KINDS = [
  KINDS.putUser,
  KINDS.removeUser,
  KINDS.editMetadata,
  KINDS.deleteEvent,
  KINDS.createGroup,
  KINDS.deleteGroup,
  KINDS.createInvite,
  KINDS.pin,
] as const
