import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { DraftBook } from '../../src/model/drafts'
import { Outbox, unsentNotice } from '../../src/model/outbox'
import { NOT_SENT_BEHIND, SendQueue } from '../../src/model/send-queue'
import type { Answer } from '../../src/model/types'

/** A send the test answers by hand. */
function deferred() {
  let resolve!: (a: Answer) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<Answer>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0))
const OK: Answer = { ok: true, message: '' }

describe('SendQueue', () => {
  test('each message leaves once the one before it is answered, in the order handed over', async () => {
    const started: string[] = []
    const sends = new Map<string, ReturnType<typeof deferred>>()
    const queue = new SendQueue<string>(() => undefined)
    const run = (id: string) => () => {
      started.push(id)
      const d = deferred()
      sends.set(id, d)
      return d.promise
    }
    const a = queue.push('a', run('a'))
    const b = queue.push('b', run('b'))
    const c = queue.push('c', run('c'))
    await tick()
    expect(started).toEqual(['a'])
    expect(queue.size).toBe(3)
    sends.get('a')!.resolve(OK)
    await tick()
    expect(started).toEqual(['a', 'b'])
    sends.get('b')!.resolve(OK)
    await tick()
    sends.get('c')!.resolve(OK)
    expect(await Promise.all([a, b, c])).toEqual([OK, OK, OK])
    expect(queue.size).toBe(0)
  })

  test('a failure hands back the failed message and those behind it; the next one goes normally', async () => {
    const unsent: { items: string[]; answer: Answer }[] = []
    const queue = new SendQueue<string>((items, answer) => unsent.push({ items, answer }))
    const first = deferred()
    const started: string[] = []
    const refused: Answer = { ok: false, message: 'blocked: no links' }
    const a = queue.push('a', () => {
      started.push('a')
      return first.promise
    })
    const b = queue.push('b', async () => {
      started.push('b')
      return OK
    })
    const c = queue.push('c', async () => {
      started.push('c')
      return OK
    })
    first.resolve(refused)
    expect(await a).toEqual(refused)
    expect(await b).toEqual(NOT_SENT_BEHIND)
    expect(await c).toEqual(NOT_SENT_BEHIND)
    expect(started).toEqual(['a'])
    expect(unsent).toEqual([{ items: ['a', 'b', 'c'], answer: refused }])
    expect(await queue.push('d', async () => OK)).toEqual(OK)
    expect(queue.size).toBe(0)
  })

  test('a send that throws counts as not sent, with its message', async () => {
    const unsent: string[][] = []
    const queue = new SendQueue<string>((items) => unsent.push(items))
    const answer = await queue.push('a', async () => {
      throw new Error('signer went away')
    })
    expect(answer).toEqual({ ok: false, message: 'signer went away' })
    expect(unsent).toEqual([['a']])
  })

  test('takeWaiting gives back what has not left; the one in flight finishes', async () => {
    const queue = new SendQueue<string>(() => undefined)
    const first = deferred()
    const a = queue.push('a', () => first.promise)
    const b = queue.push('b', async () => OK)
    await tick()
    expect(queue.takeWaiting()).toEqual(['b'])
    expect(await b).toEqual(NOT_SENT_BEHIND)
    expect(queue.size).toBe(1)
    first.resolve(OK)
    expect(await a).toEqual(OK)
    expect(queue.size).toBe(0)
  })

  test('property: one send at a time, in push order; every message is sent or handed back exactly once', async () => {
    type Step = { type: 'push' } | { type: 'answer'; outcome: 'ok' | 'refused' | 'throws' }
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.constant<Step>({ type: 'push' }),
      fc
        .constantFrom('ok' as const, 'ok' as const, 'refused' as const, 'throws' as const)
        .map((outcome): Step => ({ type: 'answer', outcome })),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const unsent: { items: number[]; answer: Answer }[] = []
        const queue = new SendQueue<number>((items, answer) => unsent.push({ items, answer }))
        const started: number[] = []
        const inFlight: { id: number; d: ReturnType<typeof deferred> }[] = []
        const failed = new Set<number>()
        const sent = new Set<number>()
        const results = new Map<number, Promise<Answer>>()
        /** Messages that were waiting behind a failure: they must never leave. */
        const stopped = new Set<number>()
        let next = 0
        const answer = (outcome: 'ok' | 'refused' | 'throws') => {
          const f = inFlight.shift()
          if (!f) return
          if (outcome === 'ok') {
            sent.add(f.id)
            f.d.resolve(OK)
          } else {
            failed.add(f.id)
            for (let id = f.id + 1; id < next; id++) stopped.add(id)
            if (outcome === 'refused') f.d.resolve({ ok: false, message: `refused ${f.id}` })
            else f.d.reject(new Error(`threw ${f.id}`))
          }
        }
        for (const s of steps) {
          if (s.type === 'push') {
            const id = next++
            results.set(
              id,
              queue.push(id, () => {
                started.push(id)
                const d = deferred()
                inFlight.push({ id, d })
                return d.promise
              }),
            )
          } else answer(s.outcome)
          await tick()
          expect(inFlight.length).toBeLessThanOrEqual(1)
        }
        // Let the rest through.
        while (queue.size > 0) {
          answer('ok')
          await tick()
          expect(inFlight.length).toBeLessThanOrEqual(1)
        }
        for (const id of stopped) expect(started).not.toContain(id)
        // Started in push order, each once.
        expect(started).toEqual([...started].sort((a, b) => a - b))
        expect(new Set(started).size).toBe(started.length)
        // Every message: sent, or in exactly one hand-back, never both.
        const handedBack = unsent.flatMap((u) => u.items)
        expect(new Set(handedBack).size).toBe(handedBack.length)
        for (let id = 0; id < next; id++) expect(sent.has(id) !== handedBack.includes(id)).toBe(true)
        for (const u of unsent) {
          // A hand-back starts with the message that failed; the rest never left, in order.
          const [head, ...rest] = u.items
          expect(failed.has(head!)).toBe(true)
          for (const id of rest) expect(started).not.toContain(id)
          expect(u.items).toEqual([...u.items].sort((a, b) => a - b))
          expect((await results.get(head!))!.ok).toBe(false)
          for (const id of rest) expect(await results.get(id)).toEqual(NOT_SENT_BEHIND)
        }
        for (const id of sent) expect(await results.get(id)).toEqual(OK)
      }),
      { numRuns: 150 },
    )
  })
})

describe('Outbox', () => {
  test('what is not sent goes back to the boxes it came from, in order, with the reason', async () => {
    const drafts = new DraftBook({ account: 'a'.repeat(64) })
    const gate = deferred()
    const sentTexts: string[] = []
    const outbox = new Outbox(drafts, async (m) => {
      if (m.draft.text === 'one') return gate.promise
      sentTexts.push(m.draft.text)
      return OK
    })
    const group = "ws://127.0.0.1:1'talk"
    const thread = `${group}#${'b'.repeat(64)}`
    void outbox.post({ box: group, draft: { text: 'one', mentions: [] } })
    void outbox.post({ box: thread, draft: { text: 'in the thread', mentions: [] } })
    void outbox.post({ box: group, draft: { text: 'two', mentions: [] } })
    // Typed meanwhile: stays after what comes back.
    drafts.set(group, { text: 'thr', mentions: [] })
    gate.resolve({ ok: false, message: 'rate-limited: slow down' })
    await tick()
    expect(sentTexts).toEqual([])
    expect(drafts.get(group)).toEqual({
      text: 'one\ntwo\nthr',
      mentions: [],
      error: 'rate-limited: slow down (2 messages were not sent; they are back in the box.)',
    })
    expect(drafts.get(thread)).toEqual({
      text: 'in the thread',
      mentions: [],
      error: 'rate-limited: slow down',
    })
    expect(outbox.size).toBe(0)
  })

  test('the notice says the relay refused when the relay said nothing', () => {
    expect(unsentNotice({ ok: false, message: '' }, 1)).toBe('The relay refused the message.')
  })
})
