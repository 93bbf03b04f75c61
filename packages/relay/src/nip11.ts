import type { RelayInfoOverrides } from './bans'
import { LIMITS, type RelayLimits } from './limits'
import { DEFAULT_MAX_BLOB_BYTES } from './media/blossom-server'
import type { UploadQuota } from './media/upload-quota'
import type { ProfilePolicy } from './profiles'

/** What NIP-11 says of the relay's Blossom (under `roost.blossom`, and caps in `limitation`). */
export interface MediaInfo {
  /** The media origin uploads go to and blobs are served from. */
  url?: string
  /** Largest upload, bytes. */
  maxUpload: number
  /** Who may upload (the `--upload-policy`, as named there). */
  uploads: string
  /** The daily upload quotas in force (0: no cap). */
  quota?: UploadQuota
}

/**
 * The NIP-11 document. `self` is the key that signs 39000–39005; `pubkey` is the same key unless the
 * profile separates an owner key (pyramid, zooid) or omits `self` (relay29, groups_relay). `name`,
 * `description` and `icon` are the operator's (NIP-86 `changerelay*`) when set; NIP-86 is listed
 * in `supported_nips` when the relay has operators.
 *
 * @example
 * relayInfo(PROFILES.strict, { relay: pk, owner: pk }).self === pk
 */
export function relayInfo(
  policy: ProfilePolicy,
  keys: { relay: string; owner: string },
  lateWindow?: number,
  limits: RelayLimits = LIMITS,
  media: MediaInfo = { maxUpload: DEFAULT_MAX_BLOB_BYTES, uploads: 'invited' },
  operator: { info?: RelayInfoOverrides; nip86?: boolean; localChat?: boolean } = {},
): Record<string, unknown> {
  const info = operator.info ?? {}
  return {
    name: info.name ?? 'Roost relay',
    description:
      info.description ?? 'A NIP-29 groups relay for development, tests and small self-hosted communities.',
    ...(info.icon !== undefined && { icon: info.icon }),
    ...(policy.nip11Self && { self: keys.relay }),
    pubkey: policy.separateOwnerKey ? keys.owner : keys.relay,
    supported_nips: [1, 9, 11, 29, 42, 45, 50, 70, 77, ...(operator.nip86 ? [86] : [])],
    // NIP-77 protocol version (V1), as strfry advertises it.
    negentropy: 1,
    software: 'https://github.com/roost/roost/tree/main/packages/relay',
    version: '0.1.0',
    limitation: {
      max_message_length: limits.maxMessageLength,
      max_subscriptions: limits.maxSubscriptions,
      max_filters: limits.maxFilters,
      max_limit: limits.maxLimit,
      default_limit: limits.defaultLimit,
      max_subid_length: limits.maxSubidLength,
      max_event_tags: limits.maxEventTags,
      max_content_length: limits.maxContentLength,
      auth_required: policy.requireAuthForAll,
      restricted_writes: true,
      ...(lateWindow ? { created_at_lower_limit: lateWindow } : {}),
      created_at_upper_limit:
        lateWindow && policy.futureWindow !== undefined
          ? Math.min(policy.futureWindow, limits.maxFutureSeconds)
          : limits.maxFutureSeconds,
      // Caps NIP-11 names no field for.
      max_filter_values: limits.maxFilterValues,
      max_query_cost: limits.maxQueryCost,
      max_auth_keys: limits.maxAuthKeys,
      max_connections: limits.maxConnections,
      max_connections_per_ip: limits.maxConnectionsPerIp,
      max_buffered_bytes: limits.maxBufferedBytes,
      // NIP-77: records one session may reconcile, sessions per connection, idle seconds before `closed:`.
      max_negentropy_records: limits.maxNegRecords,
      max_negentropy_sessions: limits.maxNegSessions,
      negentropy_idle_seconds: limits.negIdleSeconds,
      max_pending_joins: limits.maxPendingJoins,
      // Blossom's daily upload quotas (UTC days; 0: no cap).
      ...(media.quota && {
        max_uploads_per_key_per_day: media.quota.uploadsPerKeyPerDay,
        max_upload_bytes_per_key_per_day: media.quota.bytesPerKeyPerDay,
        max_uploads_per_day: media.quota.uploadsPerDay,
        max_upload_bytes_per_day: media.quota.bytesPerDay,
      }),
    },
    ...(policy.subgroups && { nip29: { subgroups: true } }),
    // Blossom (BUD-01/02) on an origin of its own, `url`: PUT /upload, GET /<sha256>.
    roost: {
      profile: policy.name,
      // NIP-29's relay-local group `_` is open (`--local-chat`).
      local_chat: operator.localChat ?? false,
      blossom: {
        ...(media.url !== undefined && { url: media.url }),
        max_upload: media.maxUpload,
        uploads: media.uploads,
      },
    },
  }
}
