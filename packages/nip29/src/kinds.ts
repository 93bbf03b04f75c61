/**
 * The event kinds NIP-29 groups use (NIP-29, NIP-C7 chat, NIP-7D threads, NIP-22 comments,
 * NIP-25 reactions, NIP-51 simple groups list, NIP-09 deletions, Blossom and NIP-98 authorization). nostr-tools lacks 9010 and 39005, hence this table.
 *
 * @example
 * if (event.kind === KINDS.chat) render(event)
 */
export const KINDS = {
  deletion: 5,
  chat: 9,
  note: 1,
  thread: 11,
  comment: 1111,
  reaction: 7,
  putUser: 9000,
  removeUser: 9001,
  editMetadata: 9002,
  deleteEvent: 9005,
  createGroup: 9007,
  deleteGroup: 9008,
  createInvite: 9009,
  pin: 9010,
  joinRequest: 9021,
  leaveRequest: 9022,
  report: 1984,
  metadata: 39000,
  admins: 39001,
  members: 39002,
  roles: 39003,
  participants: 39004,
  pins: 39005,
  groupList: 10009,
  blossomAuth: 24242,
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
