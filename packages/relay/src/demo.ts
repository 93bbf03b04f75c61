import { bytesToHex } from '@noble/hashes/utils.js'
import { TimelineWindow } from '@roost/nip29'
import { finalizeEvent, getPublicKey, type NostrEvent } from 'nostr-tools/pure'
import { createGroup, createInvite } from './admin'
import type { Engine } from './engine'
import type { DemoInfo } from './handle'
import { keptKey } from './keys'

const USERS = ['alice', 'bob', 'carol'] as const

/** How many newcomers the printed `design` code admits (a new one is printed once it is spent). @example relay.state('design')?.inviteTerms[code]?.left // DEMO_INVITE_USES at first */
export const DEMO_INVITE_USES = 1000

/** Kind 0 profiles, so the demo history shows names rather than npubs. */
const PROFILES: Record<(typeof USERS)[number], { name: string; about: string }> = {
  alice: { name: 'Alice', about: 'Admin of the demo groups.' },
  bob: { name: 'Bob', about: 'A member of every demo group.' },
  carol: { name: 'Carol', about: 'Hangs out in General.' },
}

const HISTORY: [user: number, text: string][] = [
  [0, 'Welcome to Roost! This is the general channel.'],
  [1, 'Hi everyone 👋'],
  [2, 'Hello! Is this running on the embedded relay?'],
  [0, 'It is: groups, members and messages all live in one SQLite file.'],
  [1, 'Nice. Try the design channel too, it needs an invite code.'],
]

/**
 * Seeds the demo groups, once: `general` (open, with a short history), `design` (closed; an invite
 * code good for {@link DEMO_INVITE_USES} newcomers is kept and returned) and `private` (private and closed). Demo users' keys live in the database,
 * and each gets a kind 0 profile once. Processes sharing a database seed one after another (the
 * store's relay-wide lock), so they all print the same invite code.
 */
export function seedDemo(engine: Engine): Promise<DemoInfo> {
  // Several processes may start with --demo on one database: one seeds, the others then find it done.
  return engine.store.exclusive('demo-seed', () => seed(engine))
}

async function seed(engine: Engine): Promise<DemoInfo> {
  const get = (k: string) => engine.store.getMeta(k)
  const set = (k: string, v: string) => engine.store.setMeta(k, v)
  const keys: Uint8Array[] = []
  for (const name of USERS) keys.push(await keptKey(engine.store, `demo_key_${name}`))
  const pubkeys = keys.map((k) => getPublicKey(k))
  const [alice, bob, carol] = pubkeys as [string, string, string]
  if (!(await get('demo_profiles'))) {
    await engine.trusted(
      USERS.map((name, i) =>
        finalizeEvent(
          { kind: 0, created_at: engine.now(), content: JSON.stringify(PROFILES[name]), tags: [] },
          keys[i] as Uint8Array,
        ),
      ),
    )
    await set('demo_profiles', '1')
  }
  if (!(await engine.group('general'))) {
    await createGroup(engine, {
      id: 'general',
      name: 'General',
      about: 'Open to everyone: say hello.',
      admins: [alice],
      members: [bob, carol],
    })
    const start = engine.now() - HISTORY.length * 60
    const history: NostrEvent[] = []
    // `previous` as a client writes it: the newest events of the history by someone else
    const window = new TimelineWindow()
    HISTORY.forEach(([user, text], i) => {
      const previous = window.previousTag(pubkeys[user] as string)
      const tags = [['h', 'general']]
      if (previous) tags.push(previous)
      const event = finalizeEvent(
        { kind: 9, created_at: start + i * 60, content: text, tags },
        keys[user] as Uint8Array,
      )
      history.push(event)
      window.push(event)
    })
    await engine.trusted(history)
  }
  if (!(await engine.group('design'))) {
    await createGroup(engine, {
      id: 'design',
      name: 'Design',
      about: 'Closed: join with an invite code.',
      closed: true,
      admins: [alice],
      members: [bob],
    })
  }
  if (!(await engine.group('private'))) {
    await createGroup(engine, {
      id: 'private',
      name: 'Private',
      about: 'Private and closed: only members can read.',
      private: true,
      closed: true,
      admins: [alice],
      members: [bob],
    })
  }
  let invite = await get('demo_invite')
  const design = await engine.group('design')
  if (!invite || !design?.invites.includes(invite)) {
    invite = bytesToHex(crypto.getRandomValues(new Uint8Array(6)))
    await createInvite(engine, 'design', invite, { uses: DEMO_INVITE_USES })
    await set('demo_invite', invite)
  }
  return {
    groups: ['general', 'design', 'private'],
    invite,
    users: USERS.map((name, i) => ({ name, pubkey: pubkeys[i] as string })),
  }
}
