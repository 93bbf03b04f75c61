import fc from 'fast-check'
import { type NostrEvent, nip19 } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import {
  blossomAuthTemplate,
  buildImeta,
  checkBlossomAuth,
  checkHttpAuth,
  composeMentions,
  detectForks,
  foldMembership,
  GroupAdmins,
  GroupId,
  GroupKey,
  GroupList,
  type GroupListEntry,
  GroupMembers,
  GroupMetadata,
  GroupParticipants,
  GroupPins,
  GroupReference,
  GroupRoles,
  groupForest,
  httpAuthTemplate,
  imetaOf,
  membershipAfterReply,
  mentionsPubkey,
  mentionUri,
  normalizeRelayUrl,
  parseBlobDescriptor,
  parseContent,
  pendingJoinRequests,
  RoostError,
  TimelineWindow,
  Withdrawals,
} from '../src/index'

/** Runs `fn`; passes when it returns or throws one of this package's typed errors. */
function onlyTypedErrors(fn: () => unknown): void {
  try {
    fn()
  } catch (err) {
    if (!(err instanceof RoostError)) throw err
    expect(typeof err.code).toBe('string')
    expect(err.message.length).toBeGreaterThan(0)
  }
}

const anyString = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme-ascii' }),
  fc.constantFrom<string[]>(
    '',
    ' ',
    "'",
    '?invite=',
    'nostr:',
    'naddr1',
    'wss://',
    'ws://a:0',
    '\u0000',
    "wss://a'b?invite=%",
  ),
)

/** Strings built from the pieces references are made of, so the parsers' inner branches get hit. */
const referenceLike = fc
  .array(
    fc.oneof(
      anyString,
      fc.constantFrom(
        'wss://',
        'ws://',
        'https://',
        'nostr:',
        'naddr1',
        "'",
        '?',
        '?invite=',
        '&',
        '=',
        '%',
        ':',
        '/',
      ),
      fc.domain(),
    ),
    { maxLength: 6 },
  )
  .map((parts) => parts.join(''))

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/)

const tagValue = fc.oneof(
  anyString,
  hex64,
  fc.constantFrom<string[]>(
    'd',
    'p',
    'e',
    'a',
    'name',
    'group',
    'r',
    'role',
    'participant',
    'supported_kinds',
    'child',
    '9',
  ),
)
const anyTag = fc.oneof(
  fc.array(tagValue, { maxLength: 5 }),
  fc.array(fc.anything(), { maxLength: 4 }),
  fc.anything(),
)

const STATE_KINDS = [39000, 39001, 39002, 39003, 39004, 39005, 10009, 9000, 9001]

const anyEvent = fc.oneof(
  fc.anything(),
  fc.record(
    {
      id: fc.oneof(hex64, anyString),
      pubkey: fc.oneof(hex64, anyString, fc.anything()),
      created_at: fc.oneof(fc.integer(), fc.double(), fc.anything()),
      kind: fc.oneof(fc.constantFrom(...STATE_KINDS), fc.integer(), fc.anything()),
      tags: fc.oneof(fc.array(anyTag, { maxLength: 8 }), fc.anything()),
      content: fc.oneof(anyString, fc.anything()),
      sig: anyString,
    },
    { requiredKeys: [] },
  ),
)

describe('parsers throw nothing but typed errors', () => {
  it('on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(anyString, referenceLike), (s) => {
        onlyTypedErrors(() => normalizeRelayUrl(s))
        onlyTypedErrors(() => GroupId.parse(s))
        onlyTypedErrors(() => GroupKey.parse(s))
        onlyTypedErrors(() => GroupReference.parse(s))
        onlyTypedErrors(() => GroupReference.parse(`nostr:${s}`))
        onlyTypedErrors(() => membershipAfterReply(9021, { ok: false, message: s }, 0))
      }),
      { numRuns: 1500 },
    )
  })

  it('on arbitrary bech32 naddr payloads (any TLV bytes)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.constantFrom('naddr', 'nevent', 'nprofile', 'npub'),
        (bytes, prefix) => {
          const code = nip19.encodeBytes(prefix, bytes)
          onlyTypedErrors(() => GroupReference.parse(code))
          onlyTypedErrors(() => GroupReference.parse(`${code}?invite=x`))
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('on arbitrary naddr fields', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 2 ** 32 - 1 }),
        fc.string({ maxLength: 60 }),
        fc.array(fc.oneof(anyString, fc.webUrl(), fc.domain()), { maxLength: 3 }),
        hex64,
        (kind, identifier, relays, pubkey) => {
          const code = nip19.naddrEncode({ kind, identifier, relays, pubkey })
          onlyTypedErrors(() => GroupReference.parse(code))
        },
      ),
    )
  })

  it('on arbitrary events and tags', () => {
    const parsers = [
      GroupMetadata.parse,
      GroupAdmins.parse,
      GroupMembers.parse,
      GroupRoles.parse,
      GroupParticipants.parse,
      GroupPins.parse,
      GroupList.parse,
    ]
    fc.assert(
      fc.property(anyEvent, fc.constantFrom(...STATE_KINDS), (event, kind) => {
        // Half the runs get the parser's own kind, so the tag readers see arbitrary tags.
        const withKind =
          typeof event === 'object' && event !== null && !Array.isArray(event) ? { ...event, kind } : event
        for (const parse of parsers) {
          onlyTypedErrors(() => parse(event as NostrEvent))
          onlyTypedErrors(() => parse(withKind as NostrEvent))
        }
        const list = [event, withKind] as NostrEvent[]
        onlyTypedErrors(() => foldMembership(list, 'a'.repeat(64)))
        const window = new TimelineWindow()
        for (const e of list) onlyTypedErrors(() => window.push(e))
        onlyTypedErrors(() => window.previousTag('a'.repeat(64)))
      }),
      { numRuns: 1500 },
    )
  })

  it('foldMembership and TimelineWindow.push never throw at all', () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 10 }), (events) => {
        foldMembership(events as NostrEvent[], 'a'.repeat(64))
        const window = new TimelineWindow(5)
        for (const e of events) window.push(e as NostrEvent)
        window.previousTag('a'.repeat(64))
      }),
    )
  })
})

/** Valid group ids: any string equal to its trim, non-empty, without control characters. */
const groupId = fc
  .string({
    unit: fc.oneof(
      fc.constantFrom('a', 'z', '0', '-', '_', "'", '?', '&', '=', '%', ' ', 'é', '🍕'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    ),
    minLength: 1,
    maxLength: 40,
  })
  .filter((s) => {
    try {
      return GroupId.parse(s).value === s
    } catch {
      return false
    }
  })

const relay = fc
  .record({
    scheme: fc.constantFrom('ws', 'wss', 'WSS'),
    host: fc.oneof(fc.domain(), fc.constantFrom('127.0.0.1', 'localhost', '[::1]')),
    port: fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
    path: fc.array(fc.stringMatching(/^[A-Za-z0-9._~-]{1,8}$/), { maxLength: 3 }),
    slash: fc.boolean(),
  })
  .map(({ scheme, host, port, path, slash }) => {
    const base = `${scheme}://${host}${port === undefined ? '' : `:${port}`}`
    return `${base}${path.map((p) => `/${p}`).join('')}${slash ? '/' : ''}`
  })

const invite = fc.option(fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }), { nil: undefined })

describe('encode → parse round-trips', () => {
  it('normalizeRelayUrl is idempotent', () => {
    fc.assert(
      fc.property(relay, (url) => {
        const once = normalizeRelayUrl(url)
        expect(normalizeRelayUrl(once)).toBe(once)
        expect(once).toMatch(/^wss?:\/\/[^/A-Z]+/)
        expect(once.endsWith('/')).toBe(false)
        expect(once).not.toMatch(/^wss:\/\/[^/]*:443(\/|$)/)
        expect(once).not.toMatch(/^ws:\/\/[^/]*:80(\/|$)/)
      }),
    )
  })

  it('naddr, with and without the invite code, for arbitrary ids, relays and codes', () => {
    fc.assert(
      fc.property(groupId, relay, invite, hex64, (id, url, code, relayKey) => {
        const ref = new GroupReference({ id, relay: url, invite: code, relayKey })
        const back = GroupReference.parse(ref.toNaddr())
        expect(back).toEqual(ref)
        expect(back.key().equals(new GroupKey(url, id))).toBe(true)
        const bare = GroupReference.parse(ref.toNaddr({ invite: false }))
        expect([bare.id.value, bare.relay, bare.relayKey, bare.invite]).toEqual([
          id,
          ref.relay,
          relayKey,
          undefined,
        ])
      }),
      { numRuns: 500 },
    )
  })

  it("group codes and keys (<relay>'<id>), with and without the invite code", () => {
    // An id containing "?invite=" cannot be told from an invite suffix in a group code; naddrs carry it.
    fc.assert(
      fc.property(
        groupId.filter((id) => !id.includes('?invite=')),
        relay,
        invite,
        (id, url, code) => {
          const ref = new GroupReference({ id, relay: url, invite: code })
          expect(GroupReference.parse(ref.toCode())).toEqual(ref)
          expect(GroupReference.parse(ref.toCode({ invite: false })).invite).toBeUndefined()
          const key = ref.key()
          expect(GroupKey.parse(key.toString()).equals(key)).toBe(true)
          expect(GroupReference.parse(key.toString()).key().equals(key)).toBe(true)
        },
      ),
      { numRuns: 500 },
    )
  })
})

const RELAYS = ['wss://a.example', 'wss://B.example/', 'ws://127.0.0.1:7777', 'wss://a.example:443']
const entry = fc.record(
  {
    id: fc.constantFrom('general', 'dev', "it's", '_', 'x y'),
    relay: fc.constantFrom(...RELAYS),
    name: fc.option(fc.constantFrom('General', 'Dev', ''), { nil: undefined }),
  },
  { requiredKeys: ['id', 'relay'] },
)
const otherTag = fc.oneof(
  fc.constantFrom<string[]>(
    ['r', 'wss://a.example'],
    ['r', 'wss://c.example'],
    ['group', 'orphan'],
    ['t', 'x'],
    ['group', 'g', 'https://x'],
  ),
  fc.array(fc.string({ maxLength: 5 }), { minLength: 1, maxLength: 3 }),
)
const listTags = fc.array(
  fc.oneof(
    entry.map((e) => ['group', e.id, e.relay, ...(e.name === undefined ? [] : [e.name])]),
    otherTag,
  ),
  { maxLength: 10 },
)
const groupList = fc
  .record({ tags: listTags, content: fc.constantFrom('', 'ciphertext'), createdAt: fc.nat() })
  .map(({ tags, content, createdAt }) =>
    GroupList.parse({ kind: 10009, tags, content, created_at: createdAt, pubkey: '', id: '', sig: '' }),
  )

const keyOf = (e: GroupListEntry) => new GroupKey(e.relay, e.id).toString()
const keySet = (l: GroupList) => new Set(l.entries.map(keyOf))
const nonGroupTags = (l: GroupList) => l.tags.filter((t) => t[0] !== 'group').map((t) => JSON.stringify(t))

describe('GroupList properties', () => {
  it('upsert never loses an entry it did not target, nor a non-group tag, and adds its own', () => {
    fc.assert(
      fc.property(groupList, entry, (list, e) => {
        const next = list.upsert(e)
        const target = keyOf(e)
        for (const old of list.entries) {
          if (keyOf(old) !== target) expect(next.entries).toContainEqual(old)
        }
        expect(keySet(next).has(target)).toBe(true)
        const before = nonGroupTags(list)
        expect(nonGroupTags(next).slice(0, before.length)).toEqual(before)
        expect(next.content).toBe(list.content)
      }),
    )
  })

  it('remove drops exactly its target', () => {
    fc.assert(
      fc.property(groupList, entry, (list, e) => {
        const key = new GroupKey(e.relay, e.id)
        const next = list.remove(key)
        expect(next.has(key)).toBe(false)
        expect(next.entries).toEqual(list.entries.filter((x) => keyOf(x) !== key.toString()))
        expect(nonGroupTags(next)).toEqual(nonGroupTags(list))
        expect(next.content).toBe(list.content)
      }),
    )
  })

  it('merge is a union, commutative and idempotent over entries', () => {
    fc.assert(
      fc.property(groupList, groupList, (a, b) => {
        const ab = a.merge(b)
        const ba = b.merge(a)
        expect(keySet(ab)).toEqual(new Set([...keySet(a), ...keySet(b)]))
        expect(keySet(ab)).toEqual(keySet(ba))
        expect(a.merge(a).entries).toEqual(a.entries)
        expect(ab.merge(b).entries).toEqual(ab.entries)
        expect(ab.merge(a).entries).toEqual(ab.entries)
        for (const old of a.entries)
          expect(ab.entries).toContainEqual(
            old.name === undefined ? expect.objectContaining({ id: old.id, relay: old.relay }) : old,
          )
      }),
    )
  })

  it('toTemplate → parse keeps the list', () => {
    fc.assert(
      fc.property(groupList, (list) => {
        const t = list.toTemplate(list.createdAt + 1)
        const back = GroupList.parse({ ...t, pubkey: '', id: '', sig: '' })
        expect(back.entries).toEqual(list.entries)
        expect(back.tags).toEqual(list.tags)
        expect(back.content).toBe(list.content)
      }),
    )
  })
})

describe('builders throw nothing but typed errors, and what they return is a signable template', () => {
  const id = GroupId.parse('g')
  const arg = fc.oneof(
    fc.anything(),
    anyString,
    hex64,
    fc.array(fc.oneof(hex64, anyString), { maxLength: 3 }),
    fc.record(
      {
        id: fc.oneof(hex64, anyString),
        pubkey: fc.oneof(hex64, anyString),
        kind: fc.oneof(fc.nat(), fc.anything()),
        relay: fc.oneof(anyString, fc.anything()),
        previous: fc.oneof(fc.array(anyString, { maxLength: 3 }), fc.anything()),
        createdAt: fc.oneof(fc.nat(), fc.anything()),
        replyTo: fc.anything(),
        code: fc.oneof(anyString, fc.anything()),
        reason: fc.oneof(anyString, fc.anything()),
        name: fc.oneof(anyString, fc.anything()),
        supportedKinds: fc.oneof(fc.array(fc.nat()), fc.anything()),
        children: fc.oneof(fc.array(anyString), fc.anything()),
        parent: fc.oneof(anyString, fc.anything()),
        closed: fc.anything(),
      },
      { requiredKeys: [] },
    ),
  )
  type Call = (a: unknown, b: unknown, c: unknown, d: unknown) => unknown
  const calls: Call[] = [
    (a, b) => id.message(a as string, b as never),
    (a, b, c) => id.reaction(a as never, b as string, c as never),
    (a) => id.joinRequest(a as never),
    (a) => id.leaveRequest(a as never),
    (a, b, c) => id.thread(a as string, b as string, c as never),
    (a, b, c, d) => id.comment(a as never, b as never, c as string, d as never),
    (a, b, c) => id.putUser(a as string, b as never, c as never),
    (a, b) => id.removeUser(a as string, b as never),
    (a, b) => id.editMetadata(a as never, b as never),
    (a, b) => id.deleteEvent(a as string, b as never),
    (a) => id.createGroup(a as never),
    (a) => id.deleteGroup(a as never),
    (a, b) => id.createInvite(a as never, b as never),
    (a, b) => id.pin(a as never, b as never),
    (a, b) => id.deleteOwn(a as never, b as never),
  ]

  it('on arbitrary arguments', () => {
    fc.assert(
      fc.property(fc.constantFrom(...calls), arg, arg, arg, arg, (call, a, b, c, d) => {
        let t: unknown
        try {
          t = call(a, b, c, d)
        } catch (err) {
          if (!(err instanceof RoostError)) throw err
          return
        }
        const template = t as { kind: unknown; content: unknown; tags: unknown; created_at: unknown }
        expect(Number.isInteger(template.kind)).toBe(true)
        expect(typeof template.content).toBe('string')
        expect(Number.isSafeInteger(template.created_at)).toBe(true)
        expect(Array.isArray(template.tags)).toBe(true)
        for (const tag of template.tags as unknown[]) {
          expect(Array.isArray(tag) && tag.every((v) => typeof v === 'string')).toBe(true)
        }
        expect((template.tags as string[][])[0]).toEqual(['h', 'g'])
      }),
      { numRuns: 3000 },
    )
  })
})

describe('media, auth and mention helpers', () => {
  const loose = fc.record(
    {
      verb: fc.oneof(fc.constantFrom('upload', 'get', 'delete', 'list'), fc.anything()),
      sha256: fc.oneof(hex64, fc.array(hex64, { maxLength: 2 }), fc.anything()),
      expiration: fc.oneof(fc.nat(), fc.anything()),
      createdAt: fc.oneof(fc.nat(), fc.anything()),
      servers: fc.oneof(fc.array(fc.domain(), { maxLength: 2 }), fc.anything()),
      content: fc.oneof(anyString, fc.anything()),
      url: fc.oneof(fc.webUrl(), anyString, fc.anything()),
      method: fc.oneof(fc.constantFrom('GET', 'post'), anyString, fc.anything()),
      payload: fc.oneof(hex64, fc.anything()),
      m: fc.oneof(fc.constantFrom('image/png'), anyString),
      x: fc.oneof(hex64, anyString),
      size: fc.oneof(fc.nat(), fc.anything()),
      dim: fc.oneof(fc.record({ width: fc.integer(), height: fc.integer() }), fc.anything()),
      blurhash: fc.oneof(anyString, fc.anything()),
      alt: fc.oneof(anyString, fc.anything()),
    },
    { requiredKeys: [] },
  )

  it('builders throw nothing but typed errors', () => {
    fc.assert(
      fc.property(loose, fc.anything(), (opts, other) => {
        onlyTypedErrors(() => blossomAuthTemplate(opts as never))
        onlyTypedErrors(() => httpAuthTemplate(opts as never))
        onlyTypedErrors(() => buildImeta(opts as never))
        onlyTypedErrors(() => buildImeta(other as never))
        onlyTypedErrors(() => composeMentions([opts, other] as never))
        onlyTypedErrors(() => mentionUri(opts.x as string, opts.servers as never))
        onlyTypedErrors(() => parseBlobDescriptor(opts))
        onlyTypedErrors(() => parseBlobDescriptor(other))
      }),
      { numRuns: 1500 },
    )
  })

  it('folds, checks and parsers never throw at all on arbitrary events', () => {
    const key = new GroupKey('wss://relay.example', 'g')
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 8 }), anyString, (events, text) => {
        const list = events as NostrEvent[]
        pendingJoinRequests(list)
        pendingJoinRequests(list, { groupId: 'g' })
        Withdrawals.fold(list)
        groupForest(events as never)
        detectForks(key, ['a'.repeat(64)], list)
        parseContent(text)
        for (const e of list) {
          imetaOf(e)
          mentionsPubkey(e, 'a'.repeat(64))
          checkBlossomAuth(e, { verb: 'upload', now: 1 })
          checkHttpAuth(e, { url: 'https://a.example/', method: 'GET', now: 1 })
        }
      }),
      { numRuns: 1500 },
    )
  })
})
