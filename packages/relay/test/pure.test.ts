import fc from 'fast-check'
import type { NostrEvent } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { parseAction } from '../src/groups/actions'
import { applyEvent } from '../src/groups/apply'
import { checkGroupEvent, type IntakeContext } from '../src/groups/intake'
import { applyMetadata } from '../src/groups/metadata'
import { type GroupRecord, newGroup, snapshot } from '../src/groups/record'
import { renderState } from '../src/groups/render'
import { canSee, checkRead } from '../src/groups/visibility'
import { PROFILES } from '../src/profiles'
import { RateLimiter } from '../src/rate-limit'
import { PREFIXES, prefixed, prefixOf } from '../src/reasons'
import { parseFilter, parseMessage } from '../src/wire'

const pk = (n: number) => n.toString(16).padStart(64, '0')
const RELAY = pk(999)
const ev = (kind: number, tags: string[][], pubkey = pk(1), created_at = 100): NostrEvent => ({
  id: pk(kind * 1000 + tags.length),
  pubkey,
  kind,
  tags,
  content: '',
  created_at,
  sig: '0'.repeat(128),
})
const group = (over: Partial<GroupRecord> = {}): GroupRecord => ({
  ...newGroup('g', 1, { private: false, closed: false }),
  ...over,
})

function ctx(g: GroupRecord | undefined, over: Partial<IntakeContext> = {}): IntakeContext {
  return {
    policy: PROFILES.strict,
    relayKey: RELAY,
    now: 100,
    lateWindow: 600,
    previousMinimum: 0,
    authed: new Set(),
    group: (id) => (g && id === g.id ? g : undefined),
    ring: () => [],
    findEvent: () => undefined,
    removedAnywhere: () => false,
    ...over,
  }
}

describe('reasons', () => {
  it('prefixed() always yields a one-word prefix, keeping reasons that already have one', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const out = prefixed(s)
        const p = prefixOf(out)
        expect(p).toBeDefined()
        expect(p).not.toMatch(/\s/)
      }),
    )
    for (const p of PREFIXES) expect(prefixed(`${p}: x`)).toBe(`${p}: x`)
    expect(prefixed('unknown member')).toBe('blocked: unknown member')
    expect(prefixed('invalid moderation action: x')).toBe('blocked: invalid moderation action: x')
  })
})

describe('wire', () => {
  it('parseMessage never throws and always says how to answer', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.anything().map((x) => JSON.stringify(x) ?? ''),
        ),
        (s) => {
          const r = parseMessage(s)
          if (!r.ok) expect(['OK', 'CLOSED', 'NOTICE']).toContain(r.error.answer)
        },
      ),
    )
  })

  it('parseFilter keeps every well-formed field', () => {
    const hex = fc.stringMatching(/^[0-9a-f]{64}$/)
    fc.assert(
      fc.property(
        fc.record(
          {
            ids: fc.array(hex, { maxLength: 3 }),
            authors: fc.array(hex, { maxLength: 3 }),
            kinds: fc.array(fc.integer({ min: 0, max: 65535 }), { maxLength: 3 }),
            since: fc.nat(),
            until: fc.nat(),
            limit: fc.nat(),
            '#h': fc.array(fc.string(), { maxLength: 3 }),
          },
          { requiredKeys: [] },
        ),
        (f) => {
          expect(parseFilter({ ...f })).toEqual({ ...f })
        },
      ),
    )
  })
})

describe('rate limiter', () => {
  it('spends its capacity, refuses, then refills with time', () => {
    let t = 0
    const r = new RateLimiter(3, 10, () => t)
    expect([r.take(), r.take(), r.take(), r.take()]).toEqual([true, true, true, false])
    t += 3_400
    expect([r.take(), r.take()]).toEqual([true, false])
  })
})

describe('group transitions', () => {
  it('membership follows the last 9000/9001 for each pubkey', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 4 })), { maxLength: 30 }),
        (ops) => {
          let g: GroupRecord = group()
          const expected = new Map<string, boolean>()
          for (const [add, n] of ops) {
            g = applyEvent(
              g,
              ev(add ? 9000 : 9001, [
                ['h', 'g'],
                ['p', pk(n)],
              ]),
              PROFILES.strict,
            ).record!
            expected.set(pk(n), add)
          }
          for (const [p, isIn] of expected) expect(Object.hasOwn(g.members, p)).toBe(isIn)
        },
      ),
    )
  })

  it('a rendered 39000 applied as a PUT 9002 reproduces the same metadata', () => {
    const flags = ['private', 'restricted', 'hidden', 'closed', 'livekit'] as const
    fc.assert(
      fc.property(
        fc.record({
          name: fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
          about: fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
          flags: fc.subarray([...flags]),
          kinds: fc.option(fc.array(fc.integer({ min: 0, max: 65535 }), { maxLength: 4 }), {
            nil: undefined,
          }),
        }),
        ({ name, about, flags: on, kinds }) => {
          const tags: string[][] = [['h', 'g']]
          if (name) tags.push(['name', name])
          if (about) tags.push(['about', about])
          for (const f of on) tags.push([f])
          if (kinds) tags.push(['supported_kinds', ...kinds.map(String)])
          const g = applyMetadata(group({ name: 'old', closed: true }), tags, PROFILES.strict)
          const rendered = renderState(g, 39000, PROFILES.strict, { relay: RELAY, owner: RELAY, av: true })!
          const again = applyMetadata(group(), [['h', 'g'], ...rendered.tags.slice(1)], PROFILES.strict)
          expect(snapshot(again)).toEqual(snapshot(g))
        },
      ),
    )
  })

  it('parseAction lowercases role names and drops member and empty roles', () => {
    const r = parseAction(
      ev(9000, [
        ['h', 'g'],
        ['p', pk(2), 'Admin', '', 'member', 'gardener', 'admin'],
      ]),
    )
    expect(r).toEqual({
      ok: true,
      action: { kind: 9000, targets: [{ pubkey: pk(2), roles: ['admin', 'gardener'] }] },
    })
  })
})

describe('intake ordering', () => {
  it('strict checks membership before closed; pyramid checks closed first', () => {
    const g = group({ closed: true, members: { [pk(1)]: [] } })
    const join = ev(9021, [['h', 'g']])
    expect(checkGroupEvent(join, ctx(g), new Set())).toMatchObject({ reason: 'duplicate: already a member' })
    expect(checkGroupEvent(join, ctx(g, { policy: PROFILES.pyramid }), new Set())).toMatchObject({
      reason: 'restricted: group is closed, you need an invite code',
    })
  })

  it('every refusal of every profile carries a NIP-01 prefix unless it is a NOTICE', () => {
    const kinds = fc.constantFrom(
      5,
      7,
      9,
      11,
      9000,
      9001,
      9002,
      9005,
      9007,
      9008,
      9009,
      9010,
      9021,
      9022,
      39000,
    )
    const profiles = fc.constantFrom(...Object.values(PROFILES))
    const tag = fc.oneof(
      fc.constant(['h', 'g']),
      fc.constant(['p', pk(2)]),
      fc.constant(['p', 'bad']),
      fc.constant(['code', 'c']),
      fc.constant(['e', pk(3)]),
      fc.constant(['previous', 'abcd']),
      fc.constant(['closed']),
    )
    fc.assert(
      fc.property(
        profiles,
        kinds,
        fc.array(tag, { maxLength: 4 }),
        fc.record({
          closed: fc.boolean(),
          restricted: fc.boolean(),
          private: fc.boolean(),
          hidden: fc.boolean(),
        }),
        fc.constantFrom([], ['admin'], ['moderator']),
        fc.boolean(),
        (policy, kind, tags, flags, roles, isMember) => {
          const g = group({ ...flags, members: isMember ? { [pk(1)]: roles } : {} })
          const v = checkGroupEvent(
            ev(
              kind,
              tags.map((t) => [...t]),
              pk(1),
              90,
            ),
            ctx(g, { policy }),
            new Set([0]),
          )
          if (!v.ok && !v.notice && !v.silent) expect(prefixOf(v.reason)).toMatch(/^[a-z-]+$/)
        },
      ),
    )
  })
})

describe('visibility', () => {
  it('members see everything; groups that are neither private nor hidden are visible to anyone', () => {
    fc.assert(
      fc.property(
        fc.record({ private: fc.boolean(), hidden: fc.boolean(), closed: fc.boolean() }),
        fc.integer({ min: 0, max: 40000 }),
        fc.boolean(),
        (flags, kind, broad) => {
          const g = group({ ...flags, members: { [pk(1)]: [] } })
          const filter = broad ? {} : { '#h': ['g'] }
          const member = { authed: new Set([pk(1)]), relayKey: RELAY }
          const stranger = { authed: new Set<string>(), relayKey: RELAY }
          expect(canSee({ kind }, g, member, filter, PROFILES.strict)).toBe(true)
          if (!flags.private && !flags.hidden)
            expect(canSee({ kind }, g, stranger, filter, PROFILES.strict)).toBe(true)
          if (flags.private && kind !== 39000)
            expect(canSee({ kind }, g, stranger, filter, PROFILES.strict)).toBe(false)
        },
      ),
    )
  })

  it('checkRead asks for AUTH first, then membership', () => {
    const g = group({ private: true, members: { [pk(1)]: [] } })
    const get = (id: string) => (id === 'g' ? g : undefined)
    const f = [{ '#h': ['g'] }]
    expect(checkRead(f, { authed: new Set(), relayKey: RELAY }, get, PROFILES.strict)?.auth).toBe(true)
    expect(checkRead(f, { authed: new Set([pk(2)]), relayKey: RELAY }, get, PROFILES.strict)?.auth).toBe(
      false,
    )
    expect(
      checkRead(f, { authed: new Set([pk(2), pk(1)]), relayKey: RELAY }, get, PROFILES.strict),
    ).toBeUndefined()
  })
})
