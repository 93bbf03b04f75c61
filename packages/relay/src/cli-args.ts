// `roost-relay`'s command line: its usage text and the pure parse into `startRelay` options.
import { parseArgs } from 'node:util'
import { operatorFlags } from './cli-operator-flags'
import { LIMITS, type RelayLimits } from './limits'
import type { LogFormat } from './log'
import { checkMediaUrl } from './media/media-origin'
import { parseUploadPolicy } from './media/upload-policy'
import { DEFAULT_UPLOAD_QUOTA, type UploadQuota } from './media/upload-quota'
import type { RelayOptions, RelayProfile } from './options'
import { isRelayProfile } from './profiles'

export const USAGE = `Usage: roost-relay [options]
       roost-relay admin [--url <relay-url>] <method> [params...]   (NIP-86; see admin --help)

A NIP-29 groups relay (NIP-01/09/11/29/42/45/50/70/77/86; NIP-50 is search) on one SQLite file, or
on PostgreSQL shared by several relay processes. Once it accepts connections it prints one line,
\`roost-relay ready <ws-url>\`, for scripts to wait for (with --log-format json: the line whose
"event" is "listening").

Options:
  --port <n>           TCP port (default 7777; 0 picks a free one)
  --host <addr>        interface to bind (default 127.0.0.1)
  --url <ws-url>       public URL clients use, checked in NIP-42 AUTH (repeatable;
                       default the listen address). Behind a proxy: --url wss://relay.example.com
  --db <path|url>      SQLite file, :memory:, or postgres://user:pass@host/db to share one
                       PostgreSQL database among several relay processes (default .roost/relay.db)
  --secret-key <hex>   relay signing key (default: generated once, kept in the db)
  --profile <name>     roost | strict | relay29 | groups_relay | zooid | pyramid (default roost)
  --static <dir>       serve this directory over HTTP on the same port
  --tls                serve https:// and wss:// with a self-signed certificate made on first
                       run beside the database (tls-cert.pem), for trying clients locally;
                       prints how to trust it. A public relay goes behind a TLS proxy instead
  --demo               create the demo groups general, design and private (idempotent)
  --local-chat         open NIP-29's relay-local group '_' (anyone may post; off by default)
  --late-window <s>    refuse group events older than this many seconds (0: off)
  --previous-minimum <n>  minimum number of previous references (roost 0, strict 3)
  --rate-limit <n/s>   EVENTs per connection: n per s seconds (default 200/10; 0 turns it off)
  --workers <n>        threads checking EVENT signatures (default: one per core; 0: inline)
  --max-connections <n>          open connections in total (default ${LIMITS.maxConnections})
  --max-connections-per-ip <n>   open connections from one address (default ${LIMITS.maxConnectionsPerIp})
  --max-subscriptions <n>        subscriptions per connection (default ${LIMITS.maxSubscriptions})
  --max-filters <n>              filters per REQ (default ${LIMITS.maxFilters})
  --max-filter-values <n>        values per filter list (default ${LIMITS.maxFilterValues})
  --max-event-tags <n>           tags per event (default ${LIMITS.maxEventTags})
  --max-message-length <bytes>   one client frame (default ${LIMITS.maxMessageLength})
  --max-query-cost <n>           filter values one connection may hold open (default ${LIMITS.maxQueryCost})
  --max-buffered-bytes <bytes>   unsent output before a connection is closed (default ${LIMITS.maxBufferedBytes})
  --max-future-seconds <s>       refuse events dated further ahead (default ${LIMITS.maxFutureSeconds})
  --livekit-url <url>  a LiveKit server (wss://…) for NIP-29 audio/video: the relay mints
                       tokens for members of groups with the livekit flag, and takes
                       LiveKit's webhooks on /.well-known/nip29/livekit-webhook for 39004
  --livekit-key <key>  its API key (or LIVEKIT_API_KEY)
  --livekit-secret <s> its API secret (or LIVEKIT_API_SECRET, which keeps it out of ps)
  --max-upload <bytes> largest Blossom upload (default 20971520)
  --media-port <n>     the port Blossom (PUT /upload, GET /<sha256>) listens on: an origin of
                       its own, never the web client's (default --port + 1; 0 picks a free one)
  --media-url <url>    the public origin of that port, e.g. https://media.example (behind a
                       proxy; default: the --url host, or the listen address, on --media-port)
  --blob-dir <dir>     where uploads are kept (default: blobs/ beside the SQLite file; a
                       temporary directory for :memory: and PostgreSQL)
  --upload-policy <p>  who may upload: invited (default: members someone else let into a
                       group, by an add or an invite code), members (of any group: weak, one
                       9007 makes anyone a member), groups:<id,…>, keys:<pubkey,…>, anyone, none
  --max-uploads-per-key-per-day <n>        uploads one key may make a day (default ${DEFAULT_UPLOAD_QUOTA.uploadsPerKeyPerDay}; 0: no cap)
  --max-upload-bytes-per-key-per-day <n>   bytes one key may upload a day (default ${DEFAULT_UPLOAD_QUOTA.bytesPerKeyPerDay})
  --max-uploads-per-day <n>                uploads from everyone a day (default ${DEFAULT_UPLOAD_QUOTA.uploadsPerDay})
  --max-upload-bytes-per-day <n>           bytes from everyone a day (default ${DEFAULT_UPLOAD_QUOTA.bytesPerDay})
  --admin <pubkey>     an operator key (hex or npub; repeatable): may call the NIP-86
                       management API and is beyond its bans
  --trusted-proxy <ip> a load balancer in front (repeatable): for its connections the client
                       address comes from X-Forwarded-For (per-address caps, blockip)
  --metrics-token <t>  serve Prometheus metrics at /metrics to "Authorization: Bearer <t>"
                       (or ROOST_METRICS_TOKEN, which keeps it out of ps)
  --log-format <f>     text (default) or json: one JSON object per log line on stderr
  --verbose            log one line per connection event (errors and operator calls are
                       always logged)
  -h, --help           show this help
`

/** CLI flags that set one of {@link LIMITS}. */
const LIMIT_FLAGS = {
  'max-connections': 'maxConnections',
  'max-connections-per-ip': 'maxConnectionsPerIp',
  'max-subscriptions': 'maxSubscriptions',
  'max-filters': 'maxFilters',
  'max-filter-values': 'maxFilterValues',
  'max-event-tags': 'maxEventTags',
  'max-message-length': 'maxMessageLength',
  'max-query-cost': 'maxQueryCost',
  'max-buffered-bytes': 'maxBufferedBytes',
  'max-future-seconds': 'maxFutureSeconds',
} as const satisfies Record<string, keyof RelayLimits>

/** CLI flags that set one of the daily upload quotas. */
const QUOTA_FLAGS = {
  'max-uploads-per-key-per-day': 'uploadsPerKeyPerDay',
  'max-upload-bytes-per-key-per-day': 'bytesPerKeyPerDay',
  'max-uploads-per-day': 'uploadsPerDay',
  'max-upload-bytes-per-day': 'bytesPerDay',
} as const satisfies Record<string, keyof UploadQuota>

/** The result of parsing the command line: options for startRelay, or help/an error to print. */
export type CliParse =
  | { ok: true; options: RelayOptions; verbose: boolean; logFormat?: LogFormat; tls?: boolean }
  | { ok: false; help: boolean; error?: string }

/**
 * Parses `roost-relay` arguments. Pure (no I/O), so it is tested directly.
 *
 * @example
 * parseCli(['--port', '0', '--demo']) // { ok: true, options: { port: 0, demo: true, … }, verbose: false }
 */
export function parseCli(argv: string[], env: Record<string, string | undefined> = {}): CliParse {
  let values: Record<string, string | boolean | string[] | undefined>
  try {
    values = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        url: { type: 'string', multiple: true },
        'rate-limit': { type: 'string' },
        workers: { type: 'string' },
        ...Object.fromEntries(Object.keys(LIMIT_FLAGS).map((k) => [k, { type: 'string' as const }])),
        ...Object.fromEntries(Object.keys(QUOTA_FLAGS).map((k) => [k, { type: 'string' as const }])),
        db: { type: 'string' },
        'secret-key': { type: 'string' },
        profile: { type: 'string' },
        static: { type: 'string' },
        demo: { type: 'boolean' },
        'local-chat': { type: 'boolean' },
        tls: { type: 'boolean' },
        'late-window': { type: 'string' },
        'previous-minimum': { type: 'string' },
        'livekit-url': { type: 'string' },
        'livekit-key': { type: 'string' },
        'livekit-secret': { type: 'string' },
        'max-upload': { type: 'string' },
        'blob-dir': { type: 'string' },
        'media-port': { type: 'string' },
        'media-url': { type: 'string' },
        'upload-policy': { type: 'string' },
        admin: { type: 'string', multiple: true },
        'trusted-proxy': { type: 'string', multiple: true },
        'metrics-token': { type: 'string' },
        'log-format': { type: 'string' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values
  } catch (err) {
    return { ok: false, help: false, error: (err as Error).message }
  }
  if (values.help) return { ok: false, help: true }
  const int = (name: string, v: unknown, max = Number.MAX_SAFE_INTEGER): number | string => {
    const n = Number(v)
    return Number.isInteger(n) && n >= 0 && n <= max ? n : `--${name} must be an integer from 0 to ${max}`
  }
  const options: RelayOptions = { port: 7777, host: '127.0.0.1', db: '.roost/relay.db' }
  if (values.port !== undefined) {
    const p = int('port', values.port, 65535)
    if (typeof p === 'string') return { ok: false, help: false, error: p }
    options.port = p
  }
  if (typeof values.host === 'string') options.host = values.host
  if (typeof values.db === 'string') options.db = values.db
  if (typeof values['secret-key'] === 'string') {
    if (!/^[0-9a-fA-F]{64}$/.test(values['secret-key']))
      return { ok: false, help: false, error: '--secret-key must be 64 hex characters' }
    options.secretKey = values['secret-key']
  }
  if (typeof values.profile === 'string') {
    if (!isRelayProfile(values.profile))
      return { ok: false, help: false, error: `unknown --profile '${values.profile}'` }
    options.profile = values.profile as RelayProfile
  }
  if (typeof values.static === 'string') options.staticDir = values.static
  if (values.demo) options.demo = true
  if (values['local-chat']) options.localChat = true
  for (const [flag, key] of [
    ['late-window', 'lateWindow'],
    ['previous-minimum', 'previousMinimum'],
  ] as const) {
    if (values[flag] === undefined) continue
    const n = int(flag, values[flag])
    if (typeof n === 'string') return { ok: false, help: false, error: n }
    options[key] = n
  }
  if (values['max-upload'] !== undefined) {
    const n = int('max-upload', values['max-upload'])
    if (typeof n === 'string' || n < 1)
      return { ok: false, help: false, error: '--max-upload must be a positive integer (bytes)' }
    options.maxUpload = n
  }
  if (typeof values['blob-dir'] === 'string') options.blobDir = values['blob-dir']
  if (values['media-port'] !== undefined) {
    const n = int('media-port', values['media-port'], 65535)
    if (typeof n === 'string') return { ok: false, help: false, error: n }
    options.mediaPort = n
  }
  if (typeof values['upload-policy'] === 'string') {
    try {
      options.uploadPolicy = parseUploadPolicy(values['upload-policy'])
    } catch (err) {
      return { ok: false, help: false, error: `--upload-policy: ${(err as Error).message}` }
    }
  }
  if (typeof values['media-url'] === 'string') {
    try {
      checkMediaUrl(values['media-url'])
    } catch (err) {
      return { ok: false, help: false, error: `--media-url: ${(err as Error).message}` }
    }
    options.mediaUrl = values['media-url']
  }
  if (Array.isArray(values.url)) {
    for (const u of values.url) {
      if (!/^wss?:\/\/[^\s/]+/.test(u))
        return { ok: false, help: false, error: `--url '${u}' must be a ws:// or wss:// URL` }
    }
    options.urls = values.url
  }
  if (typeof values['rate-limit'] === 'string') {
    const m = /^(\d+)(?:\/(\d+))?$/.exec(values['rate-limit'])
    const events = Number(m?.[1])
    const per = Number(m?.[2] ?? 1)
    if (!m || !Number.isSafeInteger(events) || !Number.isSafeInteger(per) || per < 1)
      return {
        ok: false,
        help: false,
        error: '--rate-limit must be <events>/<seconds>, e.g. 200/10 (0: off)',
      }
    options.rateLimit = { events, perSeconds: per }
  }
  if (values.workers !== undefined) {
    const n = int('workers', values.workers, 256)
    if (typeof n === 'string') return { ok: false, help: false, error: n }
    options.workers = n
  }
  const limits: Partial<RelayLimits> = {}
  for (const [flag, key] of Object.entries(LIMIT_FLAGS)) {
    if (values[flag] === undefined) continue
    const n = int(flag, values[flag])
    if (typeof n === 'string' || n < 1)
      return { ok: false, help: false, error: `--${flag} must be a positive integer` }
    limits[key] = n
  }
  if (Object.keys(limits).length > 0) options.limits = limits
  const quota: Partial<UploadQuota> = {}
  for (const [flag, key] of Object.entries(QUOTA_FLAGS)) {
    if (values[flag] === undefined) continue
    const n = int(flag, values[flag])
    if (typeof n === 'string') return { ok: false, help: false, error: n }
    quota[key] = n
  }
  if (Object.keys(quota).length > 0) options.uploadQuota = quota
  const lkUrl = values['livekit-url']
  const lkKey = values['livekit-key'] ?? env.LIVEKIT_API_KEY
  const lkSecret = values['livekit-secret'] ?? env.LIVEKIT_API_SECRET
  if (typeof lkUrl === 'string') {
    if (!/^(wss?|https?):\/\/[^\s/]+/.test(lkUrl))
      return { ok: false, help: false, error: `--livekit-url '${lkUrl}' must be a wss:// URL` }
    if (typeof lkKey !== 'string' || lkKey === '' || typeof lkSecret !== 'string' || lkSecret === '')
      return {
        ok: false,
        help: false,
        error:
          '--livekit-url needs --livekit-key and --livekit-secret (or LIVEKIT_API_KEY and LIVEKIT_API_SECRET)',
      }
    options.livekit = { url: lkUrl, apiKey: lkKey, apiSecret: lkSecret }
  } else if (values['livekit-key'] !== undefined || values['livekit-secret'] !== undefined) {
    return { ok: false, help: false, error: '--livekit-key and --livekit-secret need --livekit-url' }
  }
  const extra = operatorFlags(values, env)
  if (typeof extra === 'string') return { ok: false, help: false, error: extra }
  Object.assign(options, extra.options)
  return {
    ok: true,
    options,
    verbose: !!values.verbose,
    ...(extra.logFormat && { logFormat: extra.logFormat }),
    ...(values.tls === true && { tls: true }),
  }
}
