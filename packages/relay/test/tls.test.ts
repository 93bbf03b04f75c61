import { spawn } from 'node:child_process'
import { createPrivateKey, X509Certificate } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { get } from 'node:https'
import { connect as tcpConnect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls'
import { fileURLToPath } from 'node:url'
import { nip19, verifyEvent } from 'nostr-tools'
import { AbstractRelay } from 'nostr-tools/abstract-relay'
import { finalizeEvent } from 'nostr-tools/pure'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { selfSignedCertificate } from '../src/self-signed'
import { localCertificate } from '../src/tls'
import { h, RawClient, relay, user } from './helpers'

const BIN = fileURLToPath(new URL('../bin/roost-relay.mjs', import.meta.url))
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** A TLS front as a proxy terminates it: TLS in, plain TCP on to the relay's port (set once known). */
async function tlsFront(key: string, cert: string): Promise<{ port: number; to: (port: number) => void }> {
  let upstream = 0
  const open = new Set<{ destroy(): void }>()
  const server: TlsServer = createTlsServer({ key, cert }, (socket) => {
    const up = tcpConnect(upstream, '127.0.0.1')
    open.add(socket).add(up)
    socket.pipe(up).pipe(socket)
    socket.on('error', () => up.destroy())
    up.on('error', () => socket.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.close(resolve)
        for (const s of open) s.destroy()
      }),
  )
  const port = (server.address() as { port: number }).port
  return { port, to: (p) => (upstream = p) }
}

/** GET over HTTPS trusting `ca`, with NIP-11's Accept. */
function nip11(url: string, ca: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    get(url, { ca, headers: { Accept: 'application/nostr+json' } }, (res) => {
      let body = ''
      res.on('data', (d) => {
        body += d
      })
      res.on('end', () => resolve(JSON.parse(body)))
    }).on('error', reject)
  })
}

/** A WebSocket that trusts `ca`, for nostr-tools' relay. */
function trusting(ca: string): typeof globalThis.WebSocket {
  return class extends WebSocket {
    constructor(url: string) {
      super(url, { ca })
    }
  } as unknown as typeof globalThis.WebSocket
}

describe('TLS', () => {
  it('makes a self-signed certificate Node parses and checks: its names, its key, its signature', () => {
    const { key, cert } = selfSignedCertificate(['localhost', '127.0.0.1', '::1'])
    const x = new X509Certificate(cert)
    expect(x.checkHost('localhost')).toBe('localhost')
    expect(x.checkIP('127.0.0.1')).toBe('127.0.0.1')
    expect(x.checkIP('::1')).toBe('::1')
    expect(x.checkHost('example.com')).toBeUndefined()
    expect(x.verify(x.publicKey)).toBe(true)
    expect(x.checkPrivateKey(createPrivateKey(key))).toBe(true)
    expect(x.ca).toBe(true)
    expect(new Date(x.validTo).getTime()).toBeGreaterThan(Date.now() + 300 * 86_400_000)
  })

  it('behind a TLS front with --url wss://…: a client on wss authenticates, posts, and NIP-11 names https media', async () => {
    const { key, cert } = selfSignedCertificate(['localhost', '127.0.0.1'])
    const front = await tlsFront(key, cert)
    const publicUrl = `wss://localhost:${front.port}`
    const r = await relay({ urls: [publicUrl] })
    front.to(Number(new URL(r.url).port))
    const alice = user()
    await r.createGroup({ id: 'club', closed: true, members: [alice.pk] })
    const c = await RawClient.open(publicUrl, undefined, { ca: cert })
    // The AUTH relay tag is the public wss:// URL; the relay's own listen address is not its name.
    expect(await c.auth(alice, r.url)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^invalid:/),
    })
    expect(await c.auth(alice, publicUrl)).toEqual({ ok: true, message: '' })
    const hello = alice.sign({ kind: 9, content: 'over TLS', tags: h('club') })
    expect(await c.publish(hello)).toEqual({ ok: true, message: '' })
    expect((await c.req('back', { '#h': ['club'], kinds: [9] })).events.map((e) => e.id)).toEqual([hello.id])
    // nostr-tools' own client, through the front: AUTH answered from its challenge, then a post.
    const nt = new AbstractRelay(publicUrl, { verifyEvent, websocketImplementation: trusting(cert) })
    cleanups.push(() => nt.close())
    const challenged = new Promise<void>((resolve) => {
      nt.onauth = async (t) => {
        resolve()
        return finalizeEvent(t, alice.sk)
      }
    })
    await nt.connect()
    await challenged
    await nt.auth(async (t) => finalizeEvent(t, alice.sk))
    await nt.publish(alice.sign({ kind: 9, content: 'from nostr-tools over TLS', tags: h('club') }))
    const info = await nip11(`https://localhost:${front.port}`, cert)
    expect((info.roost as { blossom: { url: string } }).blossom.url).toMatch(/^https:\/\/localhost:\d+$/)
    // Without trusting the certificate, a client is refused: this really is TLS.
    await expect(RawClient.open(publicUrl)).rejects.toThrow(/self[- ]signed/i)
  })

  it('--tls makes a certificate in the data directory on first run, keeps it, and serves wss and https with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roost-tls-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const start = async () => {
      const args = ['--tls', '--port', '0', '--db', join(dir, 'relay.db'), '--demo', '--local-chat']
      const child = spawn(process.execPath, [BIN, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      const exited = new Promise((resolve) => child.on('exit', resolve))
      cleanups.push(() => {
        child.kill('SIGKILL')
        return exited
      })
      let out = ''
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          out += d
          const m = out.match(/listening on (\S+)[\s\S]*media \(Blossom\)/)
          if (m) resolve(m[1] as string)
        })
        child.on('exit', () => reject(new Error(`exited: ${out}`)))
      })
      return { url, out }
    }
    const first = await start()
    expect(first.url).toMatch(/^wss:\/\/127\.0\.0\.1:\d+$/)
    const certPath = join(dir, 'tls-cert.pem')
    expect(first.out).toContain(`TLS certificate:  ${certPath} (new)`)
    expect(first.out).toMatch(/to trust it: .*NODE_EXTRA_CA_CERTS/s)
    const cert = readFileSync(certPath, 'utf8')
    const fingerprint = new X509Certificate(cert).fingerprint256
    expect(first.out).toContain(fingerprint)
    // The links it prints name the wss:// URL.
    for (const label of ['design link', "relay chat \\('_'\\)"]) {
      const naddr = first.out.match(new RegExp(`${label}: +(naddr1[a-z0-9]+)`))?.[1] as string
      const decoded = nip19.decode(naddr)
      expect(decoded.type === 'naddr' && decoded.data.relays).toEqual([first.url])
    }
    const alice = user()
    const c = await RawClient.open(first.url, undefined, { ca: cert })
    expect(await c.auth(alice, first.url)).toEqual({ ok: true, message: '' })
    expect((await c.req('any', { limit: 1 })).closed).toBeUndefined()
    const info = await nip11(first.url.replace('wss://', 'https://'), cert)
    expect((info.roost as { blossom: { url: string } }).blossom.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
    await expect(RawClient.open(first.url)).rejects.toThrow(/self[- ]signed/i)
    // The next run keeps the certificate a client was told to trust.
    const second = await start()
    expect(second.out).not.toContain('(new)')
    expect(readFileSync(certPath, 'utf8')).toBe(cert)
    expect(localCertificate(dir).fingerprint).toBe(fingerprint)
    const again = await RawClient.open(second.url, undefined, { ca: cert })
    expect(await again.auth(alice, second.url)).toEqual({ ok: true, message: '' })
  })

  it('makes the certificate again when it is about to expire', () => {
    const dir = mkdtempSync(join(tmpdir(), 'roost-tls-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    const made = localCertificate(dir, new Date(Date.now() - 340 * 86_400_000))
    expect(made.created).toBe(true)
    const renewed = localCertificate(dir)
    expect(renewed.created).toBe(true)
    expect(renewed.fingerprint).not.toBe(made.fingerprint)
    expect(localCertificate(dir).created).toBe(false)
  })
})
