import { LIMITS } from './limits'
import type { ProfilePolicy } from './profiles'

/**
 * The NIP-11 document. `self` is the key that signs 39000–39005; `pubkey` is the same key unless the
 * profile separates an owner key (pyramid, zooid) or omits `self` (relay29, groups_relay).
 *
 * @example
 * relayInfo(PROFILES.strict, { relay: pk, owner: pk }).self === pk
 */
export function relayInfo(
  policy: ProfilePolicy,
  keys: { relay: string; owner: string },
  lateWindow?: number,
): Record<string, unknown> {
  return {
    name: 'Roost relay',
    description: 'A NIP-29 groups relay for development, tests and small self-hosted communities.',
    ...(policy.nip11Self && { self: keys.relay }),
    pubkey: policy.separateOwnerKey ? keys.owner : keys.relay,
    supported_nips: [1, 9, 11, 29, 42, 70],
    software: 'https://github.com/roost/roost/tree/main/packages/relay',
    version: '0.1.0',
    limitation: {
      max_message_length: LIMITS.maxMessageLength,
      max_subscriptions: LIMITS.maxSubscriptions,
      max_filters: LIMITS.maxFilters,
      max_limit: LIMITS.maxLimit,
      default_limit: LIMITS.defaultLimit,
      max_subid_length: LIMITS.maxSubidLength,
      max_event_tags: LIMITS.maxEventTags,
      max_content_length: LIMITS.maxContentLength,
      auth_required: policy.requireAuthForAll,
      restricted_writes: true,
      ...(lateWindow ? { created_at_lower_limit: lateWindow } : {}),
      ...(lateWindow && policy.futureWindow !== undefined
        ? { created_at_upper_limit: policy.futureWindow }
        : {}),
    },
    ...(policy.subgroups && { nip29: { subgroups: true } }),
    roost: { profile: policy.name },
  }
}
