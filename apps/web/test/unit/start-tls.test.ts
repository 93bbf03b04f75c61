import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { get } from 'node:https'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import { afterEach, expect, it } from 'vitest'
import WebSocket from 'ws'

const root = resolve(import.meta.dirname, '../../../..')
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** The first frame of `ws` matching `pred`. */
function frame(ws: WebSocket, pred: (m: unknown[]) => boolean): Promise<unknown[]> {
  return new Promise((done) => {
    const on = (data: WebSocket.RawData) => {
      const m = JSON.parse(data.toString()) as unknown[]
      if (pred(m)) {
        ws.off('message', on)
        done(m)
      }
    }
    ws.on('message', on)
  })
}

it('npm start --tls serves the web client on https and the relay on wss with the certificate it made in the data directory', async () => {
  const data = mkdtempSync(join(tmpdir(), 'roost-start-tls-'))
  cleanups.push(() => rmSync(data, { recursive: true, force: true }))
  // What `npm start --tls` runs: npm hands the flag over as npm_config_tls.
  const child = spawn(
    process.execPath,
    ['--conditions=@roost/source', '--import', 'tsx', 'scripts/start.mjs'],
    {
      cwd: root,
      env: { ...process.env, PORT: '0', ROOST_DATA: data, npm_config_tls: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  const exited = new Promise((done) => child.on('exit', done))
  cleanups.push(() => {
    child.kill('SIGKILL')
    return exited
  })
  let out = ''
  const url = await new Promise<string>((done, fail) => {
    child.stdout.on('data', (d) => {
      out += d
      const m = out.match(/Roost is running: (\S+)[\s\S]*Press Ctrl\+C/)
      if (m) done(m[1] as string)
    })
    child.on('exit', () => fail(new Error(`exited: ${out}`)))
  })
  expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
  const certPath = join(data, 'tls-cert.pem')
  expect(out).toContain(`TLS certificate:  ${certPath} (new)`)
  expect(out).toContain('to trust it:')
  const ca = readFileSync(certPath, 'utf8')
  const page = await new Promise<{ status?: number; body: string }>((done, fail) => {
    get(url, { ca }, (res) => {
      let body = ''
      res.on('data', (d) => {
        body += d
      })
      res.on('end', () => done({ status: res.statusCode, body }))
    }).on('error', fail)
  })
  expect(page.status).toBe(200)
  expect(page.body).toMatch(/<html/i)
  const relayUrl = url.replace('https://', 'wss://')
  const ws = new WebSocket(relayUrl, { ca })
  cleanups.push(() => ws.terminate())
  const challenge = (await frame(ws, (m) => m[0] === 'AUTH'))[1] as string
  const auth = finalizeEvent(
    {
      kind: 22242,
      created_at: Math.floor(Date.now() / 1000),
      tags: [
        ['relay', relayUrl],
        ['challenge', challenge],
      ],
      content: '',
    },
    generateSecretKey(),
  )
  ws.send(JSON.stringify(['AUTH', auth]))
  expect(await frame(ws, (m) => m[0] === 'OK' && m[1] === auth.id)).toEqual(['OK', auth.id, true, ''])
}, 180_000)
