// The relay's LiveKit settings and their check, apart from the handlers so options stay a leaf.
/**
 * A LiveKit server the relay mints tokens for (the `livekit` option of `startRelay`). With it the
 * relay offers NIP-29 audio/video: the `/.well-known/nip29/livekit` endpoints, the `livekit` flag
 * in 39000 and 39004 participants from LiveKit's webhooks.
 *
 * @example
 * await startRelay({ livekit: { url: 'wss://livekit.example', apiKey: 'API…', apiSecret: '…' } })
 */
export interface LiveKitConfig {
  /** The LiveKit server clients connect to (`wss://…`). */
  url: string
  /** The API key and secret tokens are signed with (and webhooks checked against). */
  apiKey: string
  /** The secret paired with `apiKey`; never sent to clients. */
  apiSecret: string
  /** Token lifetime in seconds (default 600). */
  ttlSeconds?: number
}

/** Checks a {@link LiveKitConfig} before the relay starts; throws a TypeError naming the bad field. */
export function checkLiveKitConfig(config: LiveKitConfig): void {
  let protocol = ''
  try {
    protocol = new URL(config.url).protocol
  } catch {}
  if (!['wss:', 'ws:', 'https:', 'http:'].includes(protocol))
    throw new TypeError('livekit.url must be a ws(s):// or http(s):// URL')
  if (typeof config.apiKey !== 'string' || config.apiKey === '')
    throw new TypeError('livekit.apiKey is required')
  if (typeof config.apiSecret !== 'string' || config.apiSecret === '')
    throw new TypeError('livekit.apiSecret is required')
  if (config.ttlSeconds !== undefined && (!Number.isSafeInteger(config.ttlSeconds) || config.ttlSeconds < 1))
    throw new TypeError('livekit.ttlSeconds must be a positive integer')
}
