/**
 * The relay against @roost/nip29's builders and parsers: a strict-profile conversation built with
 * GroupId and TimelineWindow (so `previous` minimums are met the way the client meets them), and the
 * relay's signed state read back with the parsers the client uses.
 */
import {
  foldMembership,
  GroupAdmins,
  GroupId,
  GroupMembers,
  GroupMetadata,
  GroupRoles,
  TimelineWindow,
} from '@roost/nip29'
import type { EventTemplate, NostrEvent } from 'nostr-tools'
import { finalizeEvent } from 'nostr-tools/pure'
import { describe, expect, it } from 'vitest'
import { connect, fetch, publish, relay, type User, user } from './helpers'

describe('@roost/nip29 against the relay (strict profile)', () => {
  it('creates, edits, joins, talks with previous references, leaves; the state parses and folds', async () => {
    const r = await relay()
    const c = await connect(r.url)
    const alice = user()
    const bob = user()
    const id = GroupId.parse('interop')
    const send = (u: User, t: EventTemplate) => publish(c, finalizeEvent(t, u.sk))
    const window = new TimelineWindow()
    const refresh = async () => {
      window.clear()
      for (const e of (await fetch(c, [id.timelineFilter(50)])).events) window.push(e)
    }

    expect(await send(alice, id.createGroup())).toEqual({ ok: true, message: '' })
    await refresh()
    const edit = id.editMetadata(
      { name: 'Interop', about: 'both sides', closed: true },
      { previous: window.previousTag(alice.pk) },
    )
    expect(await send(alice, edit)).toMatchObject({ ok: true })
    const code = await r.createInvite(id.value)
    expect(await send(bob, id.joinRequest({ code }))).toMatchObject({ ok: true })

    await refresh()
    const hello = id.message('hello', { previous: window.previousTag(bob.pk) })
    expect(hello.tags.find((t) => t[0] === 'previous')?.length).toBe(4)
    expect(await send(bob, hello)).toMatchObject({ ok: true })
    await refresh()
    expect(
      await send(alice, id.message('welcome', { previous: window.previousTag(alice.pk) })),
    ).toMatchObject({
      ok: true,
    })

    const state = (await fetch(c, [id.stateFilter(r.pubkey)])).events
    const byKind = (k: number) => state.find((e) => e.kind === k) as NostrEvent
    const meta = GroupMetadata.parse(byKind(39000))
    expect(meta).toMatchObject({
      id: 'interop',
      name: 'Interop',
      about: 'both sides',
      closed: true,
      private: false,
    })
    expect(meta.relayKey).toBe(r.pubkey)
    expect(GroupAdmins.parse(byKind(39001)).hasRole(alice.pk, 'admin')).toBe(true)
    expect(GroupMembers.parse(byKind(39002)).contains(bob.pk)).toBe(true)
    expect(GroupRoles.parse(byKind(39003)).roles.map((x) => x.name)).toEqual(['admin', 'moderator'])

    const membership = async () =>
      foldMembership((await fetch(c, [id.membershipFilter(bob.pk)])).events, bob.pk)
    expect(await membership()).toEqual({ status: 'member' })
    expect(await send(bob, id.leaveRequest())).toMatchObject({ ok: true })
    expect((await membership()).status).toBe('removed')
  })
})
