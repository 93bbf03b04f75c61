/**
 * NIP-29's group `_`: the relay's own top-level discussion (a bare `host` with no `'id` names it).
 * Off by default; an operator opens it with `localChat` (`--local-chat`). Open, anyone may post
 * in it without joining, and the relay's operators are its admins.
 *
 * @example
 * groupOf(event) === LOCAL_GROUP && !localChat // refused with LOCAL_CHAT_CLOSED
 */
export const LOCAL_GROUP = '_'

/** The refusal of an event for `_` (a 9007 creating it included) when the relay does not open it. */
export const LOCAL_CHAT_CLOSED =
  "restricted: group '_' (relay-local chat) is not open on this relay; its operator can open it with --local-chat"

/** The name `_` gets when the relay creates it. */
export const LOCAL_CHAT_NAME = 'Relay chat'
