/**
 * Reports (NIP-56 kind 1984 with the group's `h`): any member may report a message or a person;
 * the relay shows a report to the group's admins (and moderators), its author and no one else,
 * by REQ (any filter), search and live, in open, closed and private groups alike.
 */
import type { NostrEvent } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { connect, fetch, h, live, publish, relay, T0, TestClock, user } from './helpers'

describe('reports are for the group’s admins', () => {
  for (const flags of [{}, { closed: true }, { private: true, closed: true }]) {
    it(`a report is seen by the admins and its author only, by REQ, search and live (${JSON.stringify(flags)})`, async () => {
      const clock = new TestClock(T0)
      const r = await relay({ clock: clock.now })
      const [admin, moderator, reporter, bystander, offender] = Array.from({ length: 5 }, () => user(clock))
      const g = await r.createGroup({
        name: 'Club',
        ...flags,
        admins: [admin!.pk],
        members: [moderator!.pk, reporter!.pk, bystander!.pk, offender!.pk],
      })
      const asAdmin = await connect(r.url, admin)
      expect(
        (await publish(asAdmin, admin!.sign({ kind: 9000, tags: h(g, ['p', moderator!.pk, 'moderator']) })))
          .ok,
      ).toBe(true)
      const asModerator = await connect(r.url, moderator)
      const asReporter = await connect(r.url, reporter)
      const asBystander = await connect(r.url, bystander)
      const asOffender = await connect(r.url, offender)
      const stranger = await connect(r.url)
      const asStranger = await connect(r.url, user(clock))
      const all = { asAdmin, asModerator, asReporter, asBystander, asOffender, stranger, asStranger }
      // Live: by group, by the reported person, and (once authenticated) by kind.
      const watchers = Object.fromEntries(
        Object.entries(all).map(([name, c]) => {
          const outsider = c === stranger || c === asStranger
          const filters = [
            // A private group refuses a REQ by `#h` from outside (a CLOSED): outsiders listen by `#p`.
            ...(outsider && 'private' in flags ? [] : [{ '#h': [g] }]),
            { '#p': [offender!.pk] },
            ...(c === stranger ? [] : [{ kinds: [1984] }]),
          ]
          return [name, live(c, filters)]
        }),
      )
      await Promise.all(Object.values(watchers).map((w) => w.ready))

      const message = offender!.sign({ kind: 9, tags: h(g), content: 'buy cheap pills' })
      expect((await publish(asOffender, message)).ok).toBe(true)
      const report = reporter!.sign({
        kind: 1984,
        tags: h(g, ['e', message.id, 'spam'], ['p', offender!.pk]),
        content: 'spamming pill adverts',
      })
      const personReport = reporter!.sign({
        kind: 1984,
        tags: h(g, ['p', offender!.pk, 'impersonation']),
        content: 'pretends to be the admin',
      })
      expect(await publish(asReporter, report)).toEqual({ ok: true, message: '' })
      expect((await publish(asReporter, personReport)).ok).toBe(true)
      // Sent after the reports, heard by everyone (no group): whoever has it has had the reports' turn.
      const after = admin!.sign({ kind: 3, tags: [['p', offender!.pk]] })
      expect((await publish(asAdmin, after)).ok).toBe(true)

      const reports = [report.id, personReport.id]
      const sees = async (c: (typeof all)[keyof typeof all], name: string) => {
        const w = watchers[name]!
        await w.next((e) => e.id === after.id)
        const heard = w.events.filter((e) => reports.includes(e.id)).map((e) => e.id)
        const filters = [
          { '#h': [g] },
          { ids: reports },
          { '#e': [message.id] },
          { '#p': [offender!.pk] },
          { search: 'pill' },
          { search: 'pretends' },
          { authors: [reporter!.pk] },
          { kinds: [1984] },
          { kinds: [1984], '#h': [g] },
        ]
        const stored = new Set<string>()
        let closed: string | undefined
        for (const f of filters) {
          const got = await fetch(c, [f])
          closed ??= got.closed
          for (const e of got.events as NostrEvent[]) if (reports.includes(e.id)) stored.add(e.id)
        }
        return { heard: heard.sort(), stored: [...stored].sort(), closed }
      }
      const both = [...reports].sort()
      for (const name of ['asAdmin', 'asModerator', 'asReporter'] as const)
        expect([name, await sees(all[name], name)]).toEqual([
          name,
          { heard: both, stored: both, closed: undefined },
        ])
      for (const name of ['asBystander', 'asOffender', 'asStranger'] as const) {
        const { heard, stored } = await sees(all[name], name)
        expect([name, heard, stored]).toEqual([name, [], []])
      }
      const s = await sees(stranger, 'stranger')
      expect(s.heard).toEqual([])
      expect(s.stored).toEqual([])
      // Asked for by kind without AUTH: the relay asks who is there.
      expect(s.closed).toMatch(/^auth-required: /)

      // The admin dismisses one (a 9005 of the report): it is gone for the admins too.
      expect(
        (await publish(asAdmin, admin!.sign({ kind: 9005, tags: h(g, ['e', personReport.id]) }))).ok,
      ).toBe(true)
      expect((await fetch(asAdmin, [{ kinds: [1984], '#h': [g] }])).events.map((e) => e.id)).toEqual([
        report.id,
      ])
    })
  }

  it('a stranger cannot report into a closed group (writes are for members), and a report needs its group', async () => {
    const clock = new TestClock(T0)
    const r = await relay({ clock: clock.now })
    const g = await r.createGroup({ name: 'Club', closed: true })
    const c = await connect(r.url)
    const outsider = user(clock)
    expect(
      await publish(c, outsider.sign({ kind: 1984, tags: h(g, ['p', outsider.pk, 'spam']), content: 'x' })),
    ).toEqual({ ok: false, message: 'blocked: unknown member' })
    expect((await publish(c, outsider.sign({ kind: 1984, tags: [['p', outsider.pk, 'spam']] }))).ok).toBe(
      false,
    )
  })
})
