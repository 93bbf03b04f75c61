/**
 * When `incoming` fires, as `Group.subscribe` documents it, and `subscribe(listener, { after })`,
 * the cursor a bot keeps to hear everything after the newest event it answered, across a restart
 * on the SQLite store. Real relay, real WebSockets, real signatures.
 */
import { join } from 'node:path'
import { KINDS } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import { afterEach, describe, expect, it } from 'vitest'
import { type Group, type GroupEvent, LocalSigner } from '../src'
import { SqliteEventStore } from '../src/sqlite'
import { groupCode, Harness, until } from './helpers'

const h = new Harness()
afterEach(() => h.close())

const PATIENCE = 15_000
const client = (opts: Parameters<Harness['roost']>[0] = {}) =>
  h.roost({ ...opts, pool: { publishTimeout: PATIENCE, eoseTimeout: PATIENCE, ...opts.pool } })

/** The contents of the `incoming` events a listener hears, in order. */
function hear(group: Group, opts?: Parameters<Group['subscribe']>[1]) {
  const heard: NostrEvent[] = []
  const stop = group.subscribe((e: GroupEvent) => {
    if (e.type === 'incoming' && e.event.kind === KINDS.chat) heard.push(e.event)
  }, opts)
  h.defer(stop)
  const contents = () => heard.map((e) => e.content)
  const reach = async (content: string) => {
    const end = Date.now() + PATIENCE
    while (!contents().includes(content)) {
      if (Date.now() > end) throw new Error(`never heard ${content}; heard: ${contents().join(', ')}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  return { heard, contents, reach }
}

async function setUp(clock?: () => number) {
  const relay = await h.relay()
  const home = await h.relay()
  const code = groupCode(relay, await relay.createGroup({ name: 'Bots' }))
  const bob = client(clock ? { clock } : {})
  const b = await bob.groups.join(code)
  await until(b, (s) => s.membership.status === 'member' && !s.loading, PATIENCE)
  return { code, home, b }
}

describe('when incoming fires', () => {
  it('a listener added once join() resolved hears none of the history join() loaded', async () => {
    const { code, b } = await setUp()
    const old = await b.sendMessage('history')
    const alice = client()
    const a = await alice.groups.join(code)
    const { contents, reach } = hear(a)
    await until(a, (s) => !s.loading && s.messages.some((m) => m.id === old.id), PATIENCE)
    await b.sendMessage('live')
    await reach('live')
    expect(contents()).toEqual(['live'])
  })

  it('messages sent while the client was offline are incoming when the relay hands them over', async () => {
    const { code, home, b } = await setUp()
    const path = join(h.tmp(), 'bot.db')
    const signer = LocalSigner.generate()
    const bot = () => client({ signer, relays: [home.url], store: SqliteEventStore.open(path) })
    const first = bot()
    const a1 = await first.groups.join(code)
    await until(a1, (s) => s.membership.status === 'member' && !s.loading, PATIENCE)
    await first.close()

    await b.sendMessage('while you were away')
    const second = bot()
    await second.groups.ready
    const { contents, reach } = hear(second.groups.group(code)!)
    await reach('while you were away')
    expect(contents()).toEqual(['while you were away'])
  })
})

describe('subscribe(listener, { after })', () => {
  it('across a restart on SQLite: the stored events after the newest answered, then the missed and the live, each once', async () => {
    // every message of bob's in one second: the relay's order within it is all there is
    const second0 = Math.floor(Date.now() / 1000)
    const { code, home, b } = await setUp(() => second0)
    const path = join(h.tmp(), 'bot.db')
    const signer = LocalSigner.generate()
    const bot = () => client({ signer, relays: [home.url], store: SqliteEventStore.open(path) })

    // first run: the bot answers 'one', then stops before answering 'two' and 'three' (stored)
    const first = bot()
    const a1 = await first.groups.join(code)
    await until(a1, (s) => s.membership.status === 'member' && !s.loading, PATIENCE)
    const run1 = hear(a1)
    const one = await b.sendMessage('one')
    await b.sendMessage('two')
    await b.sendMessage('three')
    await run1.reach('three')
    expect(run1.heard[0]?.id).toBe(one.id)
    await first.store.setValue('bot:last', one.id)
    await first.close()

    await b.sendMessage('four') // while the bot is down

    // second run: a plain listener hears 'four' as it arrives; a cursor listener added once 'four'
    // is in (stored from the backlog, which sorts it before 'one' within their second) replays
    // 'four', 'two' and 'three' from the store, then hears 'five' live
    const second = bot()
    await second.groups.ready
    const a2 = second.groups.group(code)!
    const plain = hear(a2)
    await plain.reach('four')
    const last = await second.store.getValue('bot:last')
    expect(last).toBe(one.id)
    const resumed = hear(a2, { after: last as string })
    await resumed.reach('four')
    await b.sendMessage('five')
    await resumed.reach('five')
    await plain.reach('five')
    expect(resumed.contents().sort()).toEqual(['five', 'four', 'three', 'two'])
    expect(resumed.contents().at(-1)).toBe('five')
    expect(plain.contents()).toEqual(['four', 'five'])
  })

  it('a unix time as the cursor: the stored events newer than it; an unknown id replays nothing', async () => {
    const { code, b } = await setUp()
    const alice = client()
    const a = await alice.groups.join(code)
    await until(a, (s) => s.membership.status === 'member' && !s.loading, PATIENCE)
    const seen = hear(a)
    const one = await b.sendMessage('one')
    await seen.reach('one')
    const later = one.created_at + 1
    // wait for the clock to pass `later`, so 'two' is newer than the cursor and 'one' is not
    while (Math.floor(Date.now() / 1000) <= later) await new Promise((r) => setTimeout(r, 50))
    await b.sendMessage('two')
    await seen.reach('two')

    const byTime = hear(a, { after: later })
    const byUnknownId = hear(a, { after: 'f'.repeat(64) })
    await b.sendMessage('three')
    await byTime.reach('three')
    await byUnknownId.reach('three')
    expect(byTime.contents()).toEqual(['two', 'three'])
    expect(byUnknownId.contents()).toEqual(['three'])
  })
})
