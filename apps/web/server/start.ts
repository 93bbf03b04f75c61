/**
 * `npm start`: builds the client if needed, starts the relay on 127.0.0.1:7777 with its
 * database under `.roost/` (demo groups on first run), serves the client from the same port and
 * Blossom from the next one (an origin of its own: uploads never share the client's origin), and
 * prints the URLs and the demo invite code. `PORT` and `ROOST_DATA` override. `npm start --tls` (or
 * `npm start -- --tls`) serves https:// and wss:// with a self-signed certificate made on first run
 * in the data directory, and prints how to trust it: for trying clients that only speak wss://.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { localCertificate, startRelay, trustHint } from '@roost/relay'
import { distDir, ensureBuilt, repoRoot } from './build'

const port = Number(process.env.PORT ?? 7777)
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, got ${process.env.PORT}`)
  process.exit(1)
}
const dataDir = resolve(repoRoot, process.env.ROOST_DATA ?? '.roost')
mkdirSync(dataDir, { recursive: true })
const db = join(dataDir, 'relay.db')
const firstRun = !existsSync(db)

await ensureBuilt({ log: (l) => console.log(l) })

// `npm start --tls` reaches the script as npm's own config (npm_config_tls); `npm start -- --tls` as an argument.
const tls = process.argv.includes('--tls') || process.env.npm_config_tls === 'true'
const local = tls ? localCertificate(dataDir) : undefined
const scheme = local ? 'wss' : 'ws'

// The relay keeps its signing key in the database, so a restart keeps its identity and groups.
// NIP-42 `relay` tags are checked against these public URLs (the browser may say either host name).
const urls = port === 0 ? undefined : [`${scheme}://127.0.0.1:${port}`, `${scheme}://localhost:${port}`]
// Calls (NIP-29 AV) need a LiveKit server: LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET.
const { LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET } = process.env
const livekit =
  LIVEKIT_URL && LIVEKIT_API_KEY && LIVEKIT_API_SECRET
    ? { url: LIVEKIT_URL, apiKey: LIVEKIT_API_KEY, apiSecret: LIVEKIT_API_SECRET }
    : undefined
const relay = await startRelay({
  port,
  // Uploads are served from this port: never the client's, so no upload can run as the app.
  ...(port !== 0 && port < 65535 && { mediaPort: port + 1 }),
  host: '127.0.0.1',
  db,
  staticDir: distDir,
  demo: true,
  ...(urls && { urls }),
  ...(livekit && { livekit }),
  ...(local && { tls: { key: local.key, cert: local.cert } }),
})
// With LiveKit, an open group with a call to try "Join call" in.
if (livekit && !relay.state('standup'))
  await relay.createGroup({ id: 'standup', name: 'Standup', livekit: true })
const httpUrl = relay.url.replace(/^ws/, 'http')
console.log(`\nRoost is running: ${httpUrl}`)
console.log(`  relay     ${relay.url}  (key ${relay.pubkey.slice(0, 12)}…)`)
console.log(`  media     ${relay.mediaUrl}  (uploads: members someone let in, e.g. with the design invite)`)
console.log(`  data      ${db}${firstRun ? '  (new: demo groups created)' : ''}`)
if (local) console.log(trustHint(local, httpUrl).join('\n'))
if (relay.demo) {
  console.log(`  groups    ${relay.demo.groups.map((g) => `${relay.url}'${g}`).join('  ')}`)
  const left = relay.state('design')?.inviteTerms[relay.demo.invite]?.left
  const who = left === undefined ? 'newcomers' : `${left.toLocaleString('en')} more newcomers`
  console.log(`  invite    ${relay.demo.invite}  (lets ${who} into the closed group ${relay.url}'design)`)
}
console.log(
  livekit
    ? `  calls     LiveKit at ${livekit.url}; try ${relay.url}'standup`
    : '  calls     off (set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET to offer them)',
)
console.log('\nPress Ctrl+C to stop.')

let closing = false
async function shutdown() {
  if (closing) return
  closing = true
  await relay.close()
  process.exit(0)
}
process.on('SIGINT', shutdown)
process.on('SIGTERM', shutdown)
