import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseCli } from '../src/cli'
import { startRelay, type UploadPolicy } from '../src/index'
import { letInBySomeoneElse } from '../src/media/upload-policy'
import { connect, h, publish, relay, T0, TestClock, type User, user } from './helpers'
import { putBlob, sha, uploadAuth } from './media-helpers'

const NIP11 = { accept: 'application/nostr+json' }
const INVITED = /someone else let into a group/

/** A relay on a test clock, an operator group with `alice` as its admin, and an upload helper. */
async function setup(uploadPolicy?: UploadPolicy) {
  const clock = new TestClock(T0)
  const r = await relay({ clock: clock.now, ...(uploadPolicy !== undefined && { uploadPolicy }) })
  const u = () => user(clock)
  const alice = u()
  const open = await r.createGroup({ id: 'open', name: 'Open', admins: [alice.pk] })
  const ws = await connect(r.url)
  let n = 0
  /** Uploads a new small blob as `who`: the status and the reason. */
  const upload = async (who: User) => {
    const body = Buffer.from(`blob ${n++} ${who.pk}`)
    const auth = uploadAuth(who, body, { createdAt: clock.now(), expiration: clock.now() + 300 })
    const res = await putBlob(r.mediaUrl, body, { authorization: auth, 'content-type': 'text/plain' })
    await res.text()
    return [res.status, res.headers.get('x-reason') ?? ''] as const
  }
  const send = async (who: User, kind: number, groupId: string, ...tags: string[][]) => {
    const res = await publish(ws, who.sign({ kind, tags: h(groupId, ...tags) }))
    expect(res, `${kind} ${JSON.stringify(tags)}`).toMatchObject({ ok: true })
  }
  return { r, clock, u, alice, open, upload, send }
}

describe('who may upload: the default policy (invited)', () => {
  it('refuses a fresh key that creates a group of its own, whatever it does in it', async () => {
    const { u, upload, send } = await setup()
    const mallory = u()
    await send(mallory, 9007, 'mine')
    expect(await upload(mallory)).toEqual([403, expect.stringMatching(INVITED)])
    // A made-up co-admin, itself demoted to a plain member: still its own group.
    await send(mallory, 9000, 'mine', ['p', user().pk, 'admin'])
    await send(mallory, 9000, 'mine', ['p', mallory.pk])
    expect(await upload(mallory)).toEqual([403, expect.stringMatching(INVITED)])
    // Closed, with a code of its own, left and joined again with that code.
    const own = u()
    await send(own, 9007, 'closed-own')
    await send(own, 9002, 'closed-own', ['closed'])
    await send(own, 9009, 'closed-own', ['code', 'mine'])
    await send(own, 9022, 'closed-own')
    await send(own, 9021, 'closed-own', ['code', 'mine'])
    expect(await upload(own)).toEqual([403, expect.stringMatching(INVITED)])
    // A code of its own good for several joins (not named in the 9000): still its own doing.
    const many = u()
    await send(many, 9007, 'closed-many')
    await send(many, 9002, 'closed-many', ['closed'])
    await send(many, 9009, 'closed-many', ['code', 'many'], ['uses', '5'])
    await send(many, 9022, 'closed-many')
    await send(many, 9021, 'closed-many', ['code', 'many'])
    expect(await upload(many)).toEqual([403, expect.stringMatching(INVITED)])
  })

  it('refuses a key that joined an open group by itself, even the operator’s', async () => {
    const { u, open, upload, send } = await setup()
    const joiner = u()
    await send(joiner, 9021, open)
    expect(await upload(joiner)).toEqual([403, expect.stringMatching(INVITED)])
  })

  it('takes a key an admin added, one the operator added, and one that joined with someone else’s invite code', async () => {
    const { r, u, alice, open, upload, send } = await setup()
    expect((await upload(alice))[0]).toBe(200)
    const added = u()
    await send(alice, 9000, open, ['p', added.pk])
    expect((await upload(added))[0]).toBe(200)
    const operators = u()
    await r.createGroup({ name: 'Staff', members: [operators.pk] })
    expect((await upload(operators))[0]).toBe(200)

    const closed = await r.createGroup({ id: 'closed', closed: true, admins: [alice.pk] })
    const relayCode = await r.createInvite(closed)
    const guest = u()
    await send(guest, 9021, closed, ['code', relayCode])
    expect((await upload(guest))[0]).toBe(200)
    await send(alice, 9009, closed, ['code', 'from-alice'])
    const friend = u()
    await send(friend, 9021, closed, ['code', 'from-alice'])
    expect((await upload(friend))[0]).toBe(200)
    // Codes good for several joins are named in the join request only, not in the relay's 9000.
    const many = await r.createInvite(closed, undefined, { uses: 10 })
    await send(alice, 9009, closed, ['code', 'alice-many'], ['reusable'])
    for (const code of [many, 'alice-many']) {
      const newcomer = u()
      await send(newcomer, 9021, closed, ['code', code])
      expect((await upload(newcomer))[0]).toBe(200)
    }
  })

  it('refuses a key at once when it is removed, and takes it a few seconds after it is let in', async () => {
    const { clock, u, alice, open, upload, send } = await setup()
    const bob = u()
    expect((await upload(bob))[0]).toBe(403)
    await send(alice, 9000, open, ['p', bob.pk])
    // A refusal is kept 5 s per key (a flood of refused uploads costs the store one look).
    expect((await upload(bob))[0]).toBe(403)
    clock.advance(5)
    expect((await upload(bob))[0]).toBe(200)
    await send(alice, 9001, open, ['p', bob.pk])
    expect(await upload(bob)).toEqual([403, expect.stringMatching(INVITED)])
  })

  it('says so in NIP-11 and in the HEAD /upload preflight', async () => {
    const { r, u } = await setup()
    const info = await (await fetch(r.url.replace(/^ws/, 'http'), { headers: NIP11 })).json()
    expect(info.roost.blossom.uploads).toBe('invited')
    const mallory = u()
    const x = Buffer.from('x')
    const pre = await fetch(`${r.mediaUrl}/upload`, {
      method: 'HEAD',
      headers: { authorization: uploadAuth(mallory, x), 'x-sha-256': sha(x), 'x-content-length': '1' },
    })
    expect(pre.status).toBe(403)
  })
})

describe('who may upload: the operator’s other policies', () => {
  it('members: any key in any member list, its own group included (the weak one)', async () => {
    const { clock, u, upload, send } = await setup('members')
    const mallory = u()
    expect(await upload(mallory)).toEqual([403, 'uploads are for members of a group on this relay'])
    await send(mallory, 9007, 'mine')
    clock.advance(5)
    expect((await upload(mallory))[0]).toBe(200)
  })

  it('groups:<ids>: members of those groups only; NIP-11 does not list them', async () => {
    const { r, u, alice, open, upload, send } = await setup({ groups: ['staff'] })
    const staff = u()
    await r.createGroup({ id: 'staff', members: [staff.pk] })
    expect((await upload(staff))[0]).toBe(200)
    expect((await upload(alice))[0]).toBe(403)
    const joiner = u()
    await send(joiner, 9021, open)
    expect(await upload(joiner)).toEqual([403, 'uploads are for members of some groups on this relay'])
    const info = await (await fetch(r.url.replace(/^ws/, 'http'), { headers: NIP11 })).json()
    expect(info.roost.blossom.uploads).toBe('groups')
    expect(JSON.stringify(info)).not.toContain('staff')
  })

  it('keys:<pubkeys>, anyone and none', async () => {
    const op = user()
    const listed = await setup({ keys: [op.pk] })
    expect((await listed.upload(op))[0]).toBe(200)
    expect(await listed.upload(listed.alice)).toEqual([403, 'this key may not upload to this relay'])
    const open = await setup('anyone')
    expect((await open.upload(user()))[0]).toBe(200)
    const closed = await setup('none')
    expect(await closed.upload(closed.alice)).toEqual([403, 'this relay takes no uploads'])
  })

  it('is set with --upload-policy, and a bad one is refused before the relay starts', async () => {
    const pk = 'ab'.repeat(32)
    expect(parseCli(['--upload-policy', 'groups:staff,media'])).toMatchObject({
      ok: true,
      options: { uploadPolicy: { groups: ['staff', 'media'] } },
    })
    expect(parseCli(['--upload-policy', `keys:${pk}`])).toMatchObject({
      options: { uploadPolicy: { keys: [pk] } },
    })
    expect(parseCli(['--upload-policy', 'anyone'])).toMatchObject({ options: { uploadPolicy: 'anyone' } })
    for (const bad of ['everyone', 'keys:abc', 'groups:', 'keys:'])
      expect(parseCli(['--upload-policy', bad]), bad).toMatchObject({
        ok: false,
        error: expect.stringMatching(/--upload-policy/),
      })
    await expect(startRelay({ uploadPolicy: 'everyone' as UploadPolicy })).rejects.toThrow(/upload policy/)
    await expect(startRelay({ uploadPolicy: { keys: ['x'] } })).rejects.toThrow(/upload policy/)
  })
})

describe('the invited rule (pure)', () => {
  const K = 'a'.repeat(64)
  const RELAY = 'b'.repeat(64)
  const other = fc.stringMatching(/^[0-9a-f]{64}$/).filter((pk) => pk !== K && pk !== RELAY)
  const tags = (code: string | undefined, roles: string[]) =>
    [['h', 'g'], ['p', K, ...roles], ...(code === undefined ? [] : [['code', code]])] as string[][]

  it('property: nothing one key can bring about alone lets it upload', () => {
    // What a key can do by itself: sign its own adds, have the relay add it for its 9007, its
    // joins and its own codes; an operator-made group only by asking in itself.
    const alone = fc.record({
      add: fc.record({
        pubkey: fc.constantFrom(K, RELAY),
        tags: fc
          .tuple(fc.option(fc.string(), { nil: undefined }), fc.array(fc.string(), { maxLength: 2 }))
          .map(([code, roles]) => tags(code, roles)),
      }),
      creator: fc.constantFrom(K, undefined, RELAY),
      joinedItself: fc.boolean(),
      codeAuthors: fc.array(fc.constant(K), { maxLength: 3 }),
    })
    fc.assert(
      fc.property(alone, (a) => {
        const code = a.add.tags.find((t) => t[0] === 'code')?.[1]
        const operatorAdded = a.add.pubkey === RELAY && !code && a.creator === RELAY && !a.joinedItself
        fc.pre(!operatorAdded)
        expect(letInBySomeoneElse(K, RELAY, a)).toBe(false)
      }),
    )
  })

  it('property: an add signed by another key, or a code another key made, lets it in', () => {
    fc.assert(
      fc.property(other, fc.boolean(), (someone, joinedItself) => {
        const byAdmin = {
          add: { pubkey: someone, tags: tags(undefined, []) },
          creator: K,
          joinedItself,
          codeAuthors: [],
        }
        expect(letInBySomeoneElse(K, RELAY, byAdmin)).toBe(true)
        const byCode = {
          add: { pubkey: RELAY, tags: tags('c0de', []) },
          creator: K,
          joinedItself: true,
          codeAuthors: [K, someone],
        }
        expect(letInBySomeoneElse(K, RELAY, byCode)).toBe(true)
      }),
    )
  })
})
