import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { nip19 } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { parseCli } from '../src/cli'
import { formatLog } from '../src/log'
import { connect, fetch, h, publish, user } from './helpers'
import { putBlob, uploadAuth } from './media-helpers'

const BIN = fileURLToPath(new URL('../bin/roost-relay.mjs', import.meta.url))

function run(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => {
    out += d
  })
  child.stderr.on('data', (d) => {
    err += d
  })
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const waitFor = (re: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const m = out.match(re)
        if (m) resolve(m)
      }
      child.stdout.on('data', check)
      child.on('exit', () => reject(new Error(`exited before ${re}: ${out}${err}`)))
      check()
    })
  return { child, exit, waitFor, output: () => out, errors: () => err }
}

describe('roost-relay CLI', () => {
  it('parses every option and refuses bad ones', () => {
    expect(
      parseCli([
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--db',
        ':memory:',
        '--secret-key',
        'ab'.repeat(32),
        '--profile',
        'pyramid',
        '--static',
        'dist',
        '--demo',
        '--verbose',
        '--late-window',
        '0',
      ]),
    ).toEqual({
      ok: true,
      verbose: true,
      options: {
        port: 0,
        host: '127.0.0.1',
        db: ':memory:',
        secretKey: 'ab'.repeat(32),
        profile: 'pyramid',
        staticDir: 'dist',
        demo: true,
        lateWindow: 0,
      },
    })
    expect(parseCli([])).toMatchObject({ ok: true, options: { port: 7777, db: '.roost/relay.db' } })
    expect(parseCli(['--help'])).toEqual({ ok: false, help: true })
    expect(parseCli(['--port', 'x'])).toMatchObject({ ok: false, error: expect.stringMatching(/--port/) })
    expect(parseCli(['--profile', 'nope'])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/profile/),
    })
    expect(parseCli(['--secret-key', 'zz'])).toMatchObject({ ok: false })
    expect(parseCli(['--wat'])).toMatchObject({ ok: false, help: false })
  })

  it('configures LiveKit from flags or the environment, and only as a whole', () => {
    const lk = { url: 'wss://lk.example', apiKey: 'APIk', apiSecret: 's3cret' }
    expect(
      parseCli(['--livekit-url', lk.url, '--livekit-key', lk.apiKey, '--livekit-secret', lk.apiSecret]),
    ).toMatchObject({ ok: true, options: { livekit: lk } })
    expect(
      parseCli(['--livekit-url', lk.url], { LIVEKIT_API_KEY: lk.apiKey, LIVEKIT_API_SECRET: lk.apiSecret }),
    ).toMatchObject({ ok: true, options: { livekit: lk } })
    const none = parseCli([])
    expect(none.ok && 'livekit' in none.options).toBe(false)
    expect(parseCli(['--livekit-url', lk.url, '--livekit-key', 'k'])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/--livekit-secret/),
    })
    expect(parseCli(['--livekit-url', 'nope', '--livekit-key', 'k', '--livekit-secret', 's'])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/--livekit-url/),
    })
    expect(parseCli(['--livekit-key', 'k', '--livekit-secret', 's'])).toMatchObject({ ok: false })
  })

  it('exposes the operator’s knobs: --url (repeatable), --rate-limit and one flag per cap', () => {
    expect(
      parseCli([
        '--url',
        'wss://relay.example.com',
        '--url',
        'ws://10.0.0.2:7777',
        '--rate-limit',
        '50/10',
        '--max-connections-per-ip',
        '20',
        '--max-query-cost',
        '5000',
        '--max-future-seconds',
        '120',
      ]),
    ).toMatchObject({
      ok: true,
      options: {
        urls: ['wss://relay.example.com', 'ws://10.0.0.2:7777'],
        rateLimit: { events: 50, perSeconds: 10 },
        limits: { maxConnectionsPerIp: 20, maxQueryCost: 5000, maxFutureSeconds: 120 },
      },
    })
    expect(parseCli(['--rate-limit', '0'])).toMatchObject({ ok: true, options: { rateLimit: { events: 0 } } })
    expect(parseCli(['--rate-limit', 'fast'])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/--rate-limit/),
    })
    expect(parseCli(['--url', 'http://x'])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/--url/),
    })
    expect(parseCli(['--max-filters', '0'])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/--max-filters/),
    })
  })

  it('parses the operator flags: --admin (hex or npub), --trusted-proxy, --metrics-token (or its variable), --log-format', () => {
    const hex = 'ab'.repeat(32)
    const npub = nip19.npubEncode('cd'.repeat(32))
    expect(
      parseCli(
        [
          '--admin',
          hex,
          '--admin',
          npub,
          '--trusted-proxy',
          '127.0.0.1',
          '--trusted-proxy',
          '::1',
          '--log-format',
          'json',
        ],
        { ROOST_METRICS_TOKEN: 'a-token-of-sixteen-plus' },
      ),
    ).toMatchObject({
      ok: true,
      logFormat: 'json',
      options: {
        admins: [hex, npub],
        trustedProxies: ['127.0.0.1', '::1'],
        metricsToken: 'a-token-of-sixteen-plus',
      },
    })
    expect(parseCli(['--metrics-token', 'flag-token-0123456789'])).toMatchObject({
      options: { metricsToken: 'flag-token-0123456789' },
    })
    for (const [args, flag] of [
      [['--admin', 'alice'], '--admin'],
      [['--admin', 'nsec1xyz'], '--admin'],
      [['--trusted-proxy', 'proxy.internal'], '--trusted-proxy'],
      [['--metrics-token', 'short'], '--metrics-token'],
      [['--log-format', 'xml'], '--log-format'],
    ] as const)
      expect(parseCli([...args])).toMatchObject({ ok: false, error: expect.stringContaining(flag) })
  })

  it('formats log lines as text or as one JSON object each', () => {
    const at = new Date(0)
    expect(formatLog('text', 'connect 127.0.0.1:5000', at)).toBe(
      '1970-01-01T00:00:00.000Z connect 127.0.0.1:5000',
    )
    expect(JSON.parse(formatLog('json', 'connect 127.0.0.1:5000', at))).toEqual({
      time: '1970-01-01T00:00:00.000Z',
      level: 'info',
      event: 'connect',
      msg: 'connect 127.0.0.1:5000',
    })
    expect(JSON.parse(formatLog('json', 'error 1.2.3.4:5 "quoted"\nstack', at))).toMatchObject({
      level: 'error',
      event: 'error',
      msg: 'error 1.2.3.4:5 "quoted"\nstack',
    })
    expect(JSON.parse(formatLog('json', 'timeout 1.2.3.4:5', at)).level).toBe('warn')
  })

  it('writes the banner and every log line as one JSON object with --log-format json', async () => {
    const p = run(['--port', '0', '--db', ':memory:', '--log-format', 'json', '--verbose'])
    const [line] = await p.waitFor(/^\{.*"event":"listening".*\}$/m)
    const banner = JSON.parse(line!)
    expect(banner).toMatchObject({
      level: 'info',
      event: 'listening',
      url: expect.stringMatching(/^ws:\/\//),
    })
    const c = await connect(banner.url)
    c.close()
    p.child.kill('SIGTERM')
    expect(await p.exit).toBe(0)
    const lines = p
      .errors()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines).toEqual(
      expect.arrayContaining([expect.objectContaining({ level: 'info', event: 'connect' })]),
    )
  })

  it('serves a usable relay with --demo, prints the invite code, logs at --verbose and exits 0 on SIGTERM', async () => {
    const p = run(['--port', '0', '--db', ':memory:', '--demo', '--verbose'])
    const [, url] = await p.waitFor(/listening on (ws:\/\/\S+)/)
    const [, code] = await p.waitFor(/design invite:\s+(\S+)/)
    const [, media] = await p.waitFor(/media \(Blossom\):\s+(http:\/\/\S+)/)
    expect(media).not.toBe(url!.replace('ws://', 'http://'))
    const c = await connect(url!)
    const listing = await fetch(c, [{ kinds: [39000] }])
    expect(listing.events.map((e) => e.tags[0]![1]).sort()).toEqual(['design', 'general', 'private'])
    // With the default upload policy, a key that joined design with the invite code may upload;
    // one that joined the open general group, or made a group of its own, may not.
    const guest = user()
    expect((await publish(c, guest.sign({ kind: 9021, tags: h('design', ['code', code!]) }))).ok).toBe(true)
    const joiner = user()
    expect((await publish(c, joiner.sign({ kind: 9021, tags: h('general') }))).ok).toBe(true)
    const founder = user()
    expect((await publish(c, founder.sign({ kind: 9007, tags: h('mine') }))).ok).toBe(true)
    const upload = async (who: typeof guest) => {
      const body = Buffer.from(`from ${who.pk}`)
      return (await putBlob(media!, body, { authorization: uploadAuth(who, body) })).status
    }
    expect([await upload(guest), await upload(joiner), await upload(founder)]).toEqual([200, 403, 403])
    c.close()
    p.child.kill('SIGTERM')
    expect(await p.exit).toBe(0)
    expect(p.errors()).toMatch(/connect 127\.0\.0\.1/)
  })

  it('prints usage for --help (exit 0) and for a bad flag (exit 2)', async () => {
    const help = run(['--help'])
    expect(await help.exit).toBe(0)
    expect(help.output()).toMatch(/Usage: roost-relay/)
    expect(help.output()).toMatch(/NIP-01\/09\/11\/29\/42\/45\/50\//) // COUNT (NIP-45) and search (NIP-50) among the NIPs
    const bad = run(['--profile', 'nope'])
    expect(await bad.exit).toBe(2)
    expect(bad.errors()).toMatch(/unknown --profile/)
  })

  it('prints one stable ready line, roost-relay ready <ws-url>, last, once it accepts connections', async () => {
    const p = run(['--port', '0', '--db', ':memory:'])
    const [line, url] = await p.waitFor(/^roost-relay ready (ws:\/\/\S+)\n/m)
    expect(line).toBe(`roost-relay ready ${url}\n`)
    expect(p.output().endsWith(line!)).toBe(true) // the banner's last line
    expect(p.output()).toContain(`listening on ${url} `)
    const c = await connect(url!)
    c.close()
    p.child.kill('SIGTERM')
    expect(await p.exit).toBe(0)
    expect(p.output().match(/roost-relay ready/g)).toHaveLength(1)
  })

  it('exits 0 on SIGINT', async () => {
    const p = run(['--port', '0', '--db', ':memory:'])
    await p.waitFor(/listening on/)
    p.child.kill('SIGINT')
    expect(await p.exit).toBe(0)
  })
})
