/**
 * The README's bot recipe, run as written (its code block, with the example URLs and the secret
 * swapped for a test's) in a Node process of its own: it answers "ping" in a thread with "pong",
 * and after a restart answers the ping sent while it was down, once. Real relay over real
 * WebSockets; the bot's SQLite file is its memory across the restart.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { KINDS } from '@roost/nip29'
import { afterEach, describe, expect, it } from 'vitest'
import { LocalSigner } from '../src'
import { groupCode, Harness, until } from './helpers'

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const PATIENCE = 15_000
const h = new Harness()
afterEach(() => h.close())

/** The README's bot block, pointed at this test's relays. */
function recipe(home: string, code: string): string {
  const readme = readFileSync(join(PKG, 'README.md'), 'utf8')
  const block = /\*\*A bot\*\*[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1]
  if (!block) throw new Error('the README has no bot recipe')
  expect(block).toContain("'wss://relay.example.com'")
  expect(block).toContain(`"wss://groups.example.com'general"`)
  return block
    .replace("'wss://relay.example.com'", JSON.stringify(home))
    .replace(`"wss://groups.example.com'general"`, JSON.stringify(code))
}

/** Runs the bot in `dir` (beside the workspace's node_modules), on the sources. */
function runBot(dir: string, nsec: string): ChildProcess {
  const child = spawn(
    process.execPath,
    ['--conditions=@roost/source', '--import', 'tsx', join(dir, 'bot.mjs')],
    { cwd: dir, env: { ...process.env, BOT_NSEC: nsec }, stdio: ['ignore', 'ignore', 'pipe'] },
  )
  child.stderr?.on('data', (d) => console.error(`bot: ${d}`)) // a crash shows in the test's output
  const exited = new Promise((r) => child.on('exit', r))
  h.defer(async () => {
    if (child.exitCode === null) child.kill('SIGKILL')
    await exited
  })
  return child
}

describe('the README bot', () => {
  it('answers ping in a thread with pong, and after a restart the ping sent while it was down, once', async () => {
    const home = await h.relay()
    const relay = await h.relay()
    const code = groupCode(relay, await relay.createGroup({ name: 'Bots' }))
    // inside the package, so '@roost/client' resolves as in a project that installed it
    const dir = mkdtempSync(join(PKG, 'test', '.bot-'))
    h.defer(() => rmSync(dir, { recursive: true, force: true }))
    writeFileSync(join(dir, 'bot.mjs'), recipe(home.url, code))
    const botKey = LocalSigner.generate()

    const bob = h.roost({ pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE } })
    const b = await bob.groups.join(code)
    await until(b, (s) => s.membership.status === 'member' && !s.loading, PATIENCE)
    const pongs = (rootId: string) =>
      (b.thread(rootId)?.comments ?? []).filter((c) => c.pubkey === botKey.publicKey && c.content === 'pong')

    const first = runBot(dir, botKey.nsec())
    await until(b, (s) => s.members?.contains(botKey.publicKey) === true, PATIENCE * 2)
    const thread = await b.postThread('Bots', 'is anyone there?')
    const ping = await b.comment(thread, thread, 'ping')
    await until(b, () => pongs(thread.id).length === 1, PATIENCE * 2)
    const [pong] = pongs(thread.id)
    expect(pong!.event.tags.find((t) => t[0] === 'e')?.[1]).toBe(ping.id) // a reply to the ping
    expect(pong!.event.tags.find((t) => t[0] === 'E')?.[1]).toBe(thread.id) // in its thread
    first.kill('SIGTERM')
    await new Promise((r) => first.on('exit', r))

    const whileDown = await b.postThread('Later', 'ping') // a thread whose own text is ping
    runBot(dir, botKey.nsec())
    await until(b, () => pongs(whileDown.id).length === 1, PATIENCE * 2)
    const more = await b.comment(thread, thread, 'ping')
    await until(b, () => pongs(thread.id).length === 2, PATIENCE * 2)
    expect(pongs(thread.id).map((p) => p.event.tags.find((t) => t[0] === 'e')?.[1])).toEqual([
      ping.id,
      more.id,
    ])
    expect(pongs(whileDown.id)).toHaveLength(1)
    expect(b.snapshot().messages.filter((m) => m.kind === KINDS.chat)).toEqual([]) // all in threads
  }, 120_000)
})
