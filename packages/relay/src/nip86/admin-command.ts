// `roost-relay admin <method> [params]`: a NIP-86 call signed with the operator's key, so an
// operator needs no other tool.
import { parseArgs } from 'node:util'
import { hexToBytes } from '@noble/hashes/utils.js'
import { nip19, nip98 } from 'nostr-tools'
import { finalizeEvent } from 'nostr-tools/pure'
import { NIP86_CONTENT_TYPE } from './endpoint'

export const ADMIN_USAGE = `Usage: roost-relay admin [--url <relay-url>] <method> [params...]

Calls the relay's NIP-86 management API, signed (NIP-98) with the operator key in the
environment variable ROOST_ADMIN_KEY (nsec1… or 64 hex characters); the key's public half must
be one of the relay's --admin keys. Prints the result as JSON.

Options:
  --url <url>   the relay's public URL, exactly as its --url (default $ROOST_RELAY_URL,
                else ws://127.0.0.1:7777); wss:// is called over https://
  -h, --help    show this help

Methods (NIP-86):
  supportedmethods
  banpubkey <pubkey> [reason]      unbanpubkey <pubkey>      listbannedpubkeys
  allowpubkey <pubkey> [reason]    unallowpubkey <pubkey>    listallowedpubkeys
  banevent <id> [reason]           unbanevent <id>           listbannedevents
  allowevent <id> [reason]         listeventsneedingmoderation
  allowkind <kind>   disallowkind <kind>   listallowedkinds   listdisallowedkinds
  blockip <ip> [reason]            unblockip <ip>            listblockedips
  changerelayname <name>   changerelaydescription <text>   changerelayicon <url>

Example:
  ROOST_ADMIN_KEY=nsec1… roost-relay admin --url wss://relay.example.com banpubkey <hex> spam
`

/** Methods whose first parameter is a kind number, not a string. */
const KIND_METHODS = new Set(['allowkind', 'disallowkind'])

/** Where the command writes, and how it calls (injectable for tests). */
export interface AdminIo {
  out(text: string): void
  err(text: string): void
  fetch?: typeof fetch
}

/** The secret key in ROOST_ADMIN_KEY: an nsec or 64 hex characters. */
function secretKey(raw: string | undefined): Uint8Array | string {
  if (!raw) return 'set ROOST_ADMIN_KEY to the operator key (nsec1… or 64 hex characters)'
  const value = raw.trim()
  if (/^[0-9a-fA-F]{64}$/.test(value)) return hexToBytes(value.toLowerCase())
  try {
    const decoded = nip19.decode(value)
    if (decoded.type === 'nsec') return decoded.data
  } catch {}
  return 'ROOST_ADMIN_KEY must be an nsec1… or 64 hex characters'
}

/** The HTTP URL a NIP-86 call is POSTed to: the relay's URL with ws(s) as http(s). */
function httpUrl(url: string): string | undefined {
  try {
    const u = new URL(url)
    if (u.protocol === 'ws:') u.protocol = 'http:'
    else if (u.protocol === 'wss:') u.protocol = 'https:'
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined
    return u.href
  } catch {
    return undefined
  }
}

/**
 * Runs `roost-relay admin …`; resolves to the exit code (0 done, 1 refused or failed, 2 usage).
 *
 * @example
 * await adminMain(['--url', 'wss://relay.example.com', 'listbannedpubkeys'], process.env, { out, err }) // 0
 */
export async function adminMain(
  argv: string[],
  env: Record<string, string | undefined>,
  io: AdminIo,
): Promise<number> {
  let parsed: { values: { url?: string; help?: boolean }; positionals: string[] }
  try {
    parsed = parseArgs({
      args: argv,
      options: { url: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    })
  } catch (err) {
    io.err(`roost-relay admin: ${(err as Error).message}\n\n${ADMIN_USAGE}`)
    return 2
  }
  const [method, ...rest] = parsed.positionals
  if (parsed.values.help || method === undefined) {
    io.out(ADMIN_USAGE)
    return parsed.values.help ? 0 : 2
  }
  const sk = secretKey(env.ROOST_ADMIN_KEY)
  if (typeof sk === 'string') {
    io.err(`roost-relay admin: ${sk}\n`)
    return 2
  }
  const relay = parsed.values.url ?? env.ROOST_RELAY_URL ?? 'ws://127.0.0.1:7777'
  const url = httpUrl(relay)
  if (!url) {
    io.err(`roost-relay admin: --url '${relay}' must be a ws(s):// or http(s):// URL\n`)
    return 2
  }
  const params: unknown[] = rest.map((p, i) =>
    i === 0 && KIND_METHODS.has(method) && /^\d+$/.test(p) ? Number(p) : p,
  )
  const payload = { method, params }
  const authorization = await nip98.getToken(url, 'POST', (t) => finalizeEvent(t, sk), true, payload)
  let res: Response
  try {
    res = await (io.fetch ?? fetch)(url, {
      method: 'POST',
      headers: { 'Content-Type': NIP86_CONTENT_TYPE, Authorization: authorization },
      body: JSON.stringify(payload),
    })
  } catch (err) {
    io.err(`roost-relay admin: cannot reach ${url}: ${(err as Error).message}\n`)
    return 1
  }
  let body: { result?: unknown; error?: string }
  try {
    body = (await res.json()) as typeof body
  } catch {
    io.err(
      `roost-relay admin: ${url} answered ${res.status} without a NIP-86 body (is it the relay's URL?)\n`,
    )
    return 1
  }
  if (!res.ok || body.error) {
    io.err(`roost-relay admin: ${body.error ?? `HTTP ${res.status}`}\n`)
    return 1
  }
  io.out(`${JSON.stringify(body.result, null, 2)}\n`)
  return 0
}
