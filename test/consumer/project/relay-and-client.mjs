// (a) Plain Node ESM, no TypeScript, no loader: start `roost-relay` from the installed bin with
// its demo groups, join the demo group with @roost/client and its SQLite store, send a message and
// read it back, from the group's snapshot and from the store on disk. The relay's database is a
// SQLite file, or the `postgres://…` URL given as the first argument.
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRoost, LocalSigner } from '@roost/client'
import { SqliteEventStore } from '@roost/client/sqlite'

const DEADLINE_MS = 60_000
const dir = mkdtempSync(join(tmpdir(), 'roost-consumer-'))
const db = process.argv[2] ?? join(dir, 'relay.db')
const backend = db.startsWith('postgres') ? 'PostgreSQL' : 'SQLite'

function fail(message) {
  console.error(`consumer (a): ${message}`)
  process.exit(1)
}

const relay = spawn(join('node_modules', '.bin', 'roost-relay'), ['--port', '0', '--db', db, '--demo'], {
  stdio: ['ignore', 'pipe', 'inherit'],
})
const exited = new Promise((resolve) => relay.on('exit', (code, signal) => resolve({ code, signal })))
let output = ''
const url = await new Promise((resolve, reject) => {
  const timer = setTimeout(
    () => reject(new Error(`no listening line in ${DEADLINE_MS} ms: ${output}`)),
    DEADLINE_MS,
  )
  relay.stdout.on('data', (chunk) => {
    output += chunk
    const m = /listening on (ws:\/\/\S+)/.exec(output)
    if (m) {
      clearTimeout(timer)
      resolve(m[1])
    }
  })
  relay.on('exit', (code) => reject(new Error(`roost-relay exited with ${code}: ${output}`)))
}).catch((err) => fail(err.message))
if (!output.includes('demo groups:')) fail(`the relay did not report its demo groups: ${output}`)

function until(group, predicate, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop()
      reject(new Error(`${what}: not seen in ${DEADLINE_MS} ms`))
    }, DEADLINE_MS)
    const check = () => {
      if (!predicate(group.snapshot())) return
      clearTimeout(timer)
      stop()
      resolve(group.snapshot())
    }
    const stop = group.subscribe(check)
    check()
  })
}

const storePath = join(dir, 'client.db')
const roost = createRoost({
  signer: LocalSigner.generate(),
  store: SqliteEventStore.open(storePath),
  relays: [url],
})
try {
  const group = await roost.groups.join(`${url}'general`)
  await until(group, (s) => s.membership.status === 'member', 'membership of the demo group')
  await until(group, (s) => s.messages.length > 0, 'the demo history')
  const text = `hello from an installed package ${Date.now()}`
  await group.sendMessage(text)
  await until(group, (s) => s.messages.some((m) => m.event.content === text), 'our message in the timeline')
  await roost.close()

  const store = SqliteEventStore.open(storePath)
  const stored = await store.query({ kinds: [9], tags: { h: ['general'] } })
  await store.close()
  if (!stored.some((e) => e.content === text)) fail('our message is not in the SQLite store')
  console.log(
    `consumer (a): relay on ${backend}: joined ${url}'general, sent and read back a message (${stored.length} in the store)`,
  )
} catch (err) {
  fail(err instanceof Error ? err.stack : String(err))
} finally {
  relay.kill('SIGTERM')
}
const { code } = await exited
if (code !== 0) fail(`roost-relay exited with ${code} on SIGTERM`)
