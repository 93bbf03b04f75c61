import type { NostrEvent } from 'nostr-tools'
import {
  type BlobInput,
  type Effect,
  type EngineOptions,
  ReadStateEngine,
  readStateTags,
  serializeBlob,
} from '../src'

export const PK = 'f'.repeat(64)
export const T0 = 1_700_001_200_000 // ms

let idCounter = 0
/** A unique fake event id (64 hex). Signatures are not the engine's business. */
export function fakeId(): string {
  return (++idCounter).toString(16).padStart(64, '0')
}

/** A decrypted kind 30078 event as the engine receives it. */
export function blob(p: {
  slot: string
  clientId: string
  contexts: Record<string, number>
  createdAt: number
  id?: string
  pubkey?: string
  plaintext?: string | null
  tags?: string[][]
}): BlobInput {
  const event: NostrEvent = {
    id: p.id ?? fakeId(),
    pubkey: p.pubkey ?? PK,
    kind: 30078,
    created_at: p.createdAt,
    tags: p.tags ?? readStateTags(p.slot),
    content: 'AgAA', // ciphertext is opaque to the engine
    sig: '0'.repeat(128),
  }
  const plaintext =
    p.plaintext === undefined ? serializeBlob({ clientId: p.clientId, contexts: p.contexts }) : p.plaintext
  return { event, plaintext }
}

export function counterIds(prefix = 'id'): () => string {
  let n = 0
  return () => `${prefix}${++n}`.padEnd(32, '0')
}

export type Of<T extends Effect['type']> = Extract<Effect, { type: T }>

export function find<T extends Effect['type']>(effects: Effect[], type: T): Of<T> | undefined {
  return effects.find((e): e is Of<T> => e.type === type)
}

export function all<T extends Effect['type']>(effects: Effect[], type: T): Of<T>[] {
  return effects.filter((e): e is Of<T> => e.type === type)
}

/** An engine with a hand-driven clock, loaded with nothing. */
export function setup(opts: Partial<EngineOptions> = {}) {
  const clock = { now: T0 }
  const engine = new ReadStateEngine({
    pubkey: PK,
    clock: () => clock.now,
    randomId: counterIds(),
    ...opts,
  })
  const startEffects = engine.start()
  return {
    engine,
    clock,
    startEffects,
    advance(ms: number): Effect[] {
      clock.now += ms
      return engine.tick()
    },
    nowSec: () => Math.floor(clock.now / 1000),
    /** Answers a fetch-own with `own` and, when a publish follows, reports it as accepted. */
    complete(effects: Effect[], own: BlobInput[] = [], ok = true) {
      const fetch = find(effects, 'fetch-own')
      if (!fetch) throw new Error('no fetch-own effect')
      const after = engine.ownFetched(fetch.ref, own)
      const pub = find(after, 'publish')
      const id = fakeId()
      const done = pub ? engine.published(pub.ref, { id, ok }) : []
      return { fetch, after, pub, id, done }
    },
  }
}
