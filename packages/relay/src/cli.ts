import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { nip19 } from 'nostr-tools'
import { parseCli, USAGE } from './cli-args'
import { RelayError } from './errors'
import { LOCAL_GROUP } from './groups/local-chat'
import { formatLog, isNotable } from './log'
import { isPostgresUrl, redactDbUrl } from './store/db-url'
import { localCertificate, trustHint } from './tls'

export { type CliParse, parseCli, USAGE } from './cli-args'

/** How long SIGTERM or SIGINT gives the relay to close cleanly before the process exits 1, ms. */
const STOP_MS = 5_000
/**
 * The ready line's prefix: `roost-relay ready <ws-url>`, one line on stdout once the relay accepts
 * connections, the last of the banner. Scripts wait for it; its form is documented and kept.
 */
export const READY = 'roost-relay ready '

/**
 * Runs the CLI: starts the relay, prints where it listens, closes cleanly on SIGINT/SIGTERM (exit 0,
 * or 1 when closing takes more than 5 s), or runs `roost-relay admin …`.
 */
export async function main(argv: string[]): Promise<void> {
  if (argv[0] === 'admin') {
    const { adminMain } = await import('./nip86/admin-command')
    process.exitCode = await adminMain(argv.slice(1), process.env, {
      out: (t) => process.stdout.write(t),
      err: (t) => process.stderr.write(t),
    })
    return
  }
  const parsed = parseCli(argv, process.env)
  if (!parsed.ok) {
    if (parsed.error) process.stderr.write(`roost-relay: ${parsed.error}\n\n`)
    process.stdout.write(USAGE)
    process.exitCode = parsed.help ? 0 : 2
    return
  }
  const { options } = parsed
  if (options.db && options.db !== ':memory:' && !isPostgresUrl(options.db))
    mkdirSync(dirname(options.db), { recursive: true })
  const format = parsed.logFormat ?? 'text'
  options.log = (line) => {
    if (parsed.verbose || isNotable(line)) process.stderr.write(`${formatLog(format, line)}\n`)
  }
  // --tls: the local certificate beside the database (made on first run), or under .roost.
  const local = parsed.tls
    ? localCertificate(
        options.db && options.db !== ':memory:' && !isPostgresUrl(options.db)
          ? dirname(options.db)
          : '.roost',
      )
    : undefined
  if (local) options.tls = { key: local.key, cert: local.cert }
  const { startRelay } = await import('./relay')
  let relay: Awaited<ReturnType<typeof startRelay>>
  try {
    relay = await startRelay(options)
  } catch (err) {
    // A bad option or a missing optional package: one line naming it, not a stack trace.
    if (!(err instanceof RelayError)) throw err
    process.stderr.write(`roost-relay: ${err.message}\n`)
    process.exitCode = 1
    return
  }
  const out = [
    `roost-relay listening on ${relay.url} (profile ${options.profile ?? 'roost'})`,
    `  relay key (self): ${relay.pubkey}`,
    `  database:         ${redactDbUrl(options.db ?? '')}`,
  ]
  if (options.urls) out.push(`  public URLs:      ${options.urls.join(' ')}`)
  if (local) out.push(...trustHint(local, relay.url.replace('wss://', 'https://')))
  if (options.livekit) out.push(`  LiveKit (AV):     ${options.livekit.url}`)
  if (options.staticDir)
    out.push(`  web:              ${relay.url.replace(/^ws/, 'http')}/ (from ${options.staticDir})`)
  out.push(`  media (Blossom):  ${relay.mediaUrl}`)
  if (options.urls && !options.mediaUrl)
    out.push('  (behind a proxy, give --media-url: the media port needs a public origin of its own)')
  if (relay.demo) {
    out.push(`  demo groups:      ${relay.demo.groups.join(', ')}`)
    const left = relay.state('design')?.inviteTerms[relay.demo.invite]?.left
    out.push(
      `  design invite:    ${relay.demo.invite}${left === undefined ? '' : `  (admits ${left} more newcomers)`}`,
    )
  }
  // Links name the public URL (behind a TLS front, --url wss://…), as clients will reach the relay.
  const linkUrl = options.urls?.[0] ?? relay.url
  const link = (identifier: string) =>
    nip19.naddrEncode({ kind: 39000, pubkey: relay.pubkey, identifier, relays: [linkUrl] })
  if (relay.demo) out.push(`  design link:      ${link('design')}?invite=${relay.demo.invite}`)
  if (options.localChat) out.push(`  relay chat ('_'): ${link(LOCAL_GROUP)}`)
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) {
      // A second signal: the operator does not want to wait.
      process.stderr.write(`roost-relay: ${signal} again, exiting now\n`)
      process.exit(1)
    }
    stopping = true
    process.stdout.write(`roost-relay: ${signal}, closing\n`)
    // Answer what was received, commit, say CLOSED, close: within STOP_MS, or exit 1 saying so.
    const deadline = setTimeout(() => {
      process.stderr.write(`roost-relay: not closed within ${STOP_MS / 1000} s, exiting\n`)
      process.exit(1)
    }, STOP_MS)
    relay.close().then(
      () => {
        clearTimeout(deadline)
        process.exit(0)
      },
      (err: unknown) => {
        process.stderr.write(`roost-relay: closing failed: ${(err as Error).stack ?? err}\n`)
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  if (format === 'json') {
    const [first] = out
    process.stdout.write(
      `${JSON.stringify({
        time: new Date().toISOString(),
        level: 'info',
        event: 'listening',
        msg: first,
        url: relay.url,
        pubkey: relay.pubkey,
        database: redactDbUrl(options.db ?? ''),
        ...(options.urls && { urls: options.urls }),
        ...(relay.demo && { demo: relay.demo }),
      })}\n`,
    )
  } else process.stdout.write(`${out.join('\n')}\n${READY}${relay.url}\n`)
}
