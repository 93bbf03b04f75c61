// The Node bot a newcomer writes from the READMEs, plain ESM: it answers "ping" with "pong" in a
// thread (a comment on a kind 11 thread, or on the comment that said ping), against a relay the
// test starts in-process with startRelay. A second account plays the user.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRoost, LocalSigner } from '@roost/client'
import { SqliteEventStore } from '@roost/client/sqlite'
import { startRelay } from '@roost/relay'

const DEADLINE_MS = 60_000
const dir = mkdtempSync(join(tmpdir(), 'roost-bot-'))
const relay = await startRelay({ port: 0 })
const id = await relay.createGroup({ name: 'Lobby' })
const groupKey = `${relay.url}'${id}`

// ---- the bot, as in the "Getting started: a Node bot" guide ----
const signer = LocalSigner.generate()
const botPubkey = await signer.getPublicKey()
const bot = createRoost({
  signer,
  store: SqliteEventStore.open(join(dir, 'bot.db')),
  relays: [relay.url],
})
const me = await bot.groups.join(groupKey)
async function answer(event) {
  if (event.pubkey === botPubkey || event.content.trim().toLowerCase() !== 'ping') return
  await me.reply(event, 'pong') // a thread or a comment in it: a comment in that thread
}
const answering = new Set() // to let the answers in flight finish before closing
me.subscribe((update) => {
  if (update.type !== 'incoming') return
  const reply = answer(update.event)
    .catch((err) => console.warn(`no pong to ${update.event.id}: ${err.message}`))
    .finally(() => answering.delete(reply))
  answering.add(reply)
})
// ---- end of the bot ----

function until(group, predicate, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop()
      reject(new Error(`${what}: not seen in ${DEADLINE_MS} ms`))
    }, DEADLINE_MS)
    const check = () => {
      const snapshot = group.snapshot()
      if (!predicate(snapshot)) return
      clearTimeout(timer)
      stop()
      resolve(snapshot)
    }
    const stop = group.subscribe(check)
    check()
  })
}

const user = createRoost({ signer: LocalSigner.generate(), relays: [relay.url] })
try {
  const group = await user.groups.join(groupKey)
  await until(group, (s) => s.membership.status === 'member', 'the user joining')
  await until(me, (s) => s.membership.status === 'member', 'the bot joining')
  const thread = await group.postThread('Are you there?', 'ping')
  const comments = (s) => s.threads.find((t) => t.root.id === thread.id)?.comments ?? []
  let s = await until(
    group,
    (s) => comments(s).some((c) => c.content === 'pong'),
    "the bot's pong to a thread",
  )
  const pong = comments(s).find((c) => c.content === 'pong')
  const ping = await group.comment(thread, pong.event, 'ping')
  s = await until(
    group,
    (s) => comments(s).filter((c) => c.content === 'pong').length === 2,
    "the bot's pong to a comment",
  )
  const second = comments(s).filter((c) => c.content === 'pong')[1]
  const parent = second.event.tags.find((t) => t[0] === 'e')?.[1]
  if (parent !== ping.id)
    throw new Error(`the second pong answers ${parent}, not the ping comment ${ping.id}`)
  console.log(`consumer (bot): pong to a thread and to a comment in it, on ${relay.url}`)
} catch (err) {
  console.error(`consumer (bot): ${err instanceof Error ? err.stack : err}`)
  process.exitCode = 1
} finally {
  await user.close()
  await Promise.all(answering)
  await bot.close()
  await relay.close()
}
