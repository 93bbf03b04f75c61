import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Liveness, type LivenessLink, PROBE_ID } from '../src/pool/liveness'
import { FakeTimers } from './fake-timers'

const QUIET = 3_000
const PROBE = 5_000
const IDLE = 29_000

/**
 * A watch on a link that records what the watch does, on a hand-moved clock. With `answerIn`, the
 * relay answers each probe that many ms after it was sent.
 */
function watch(awaiting: () => boolean = () => false, answerIn?: () => number) {
  const clock = new FakeTimers()
  const sent: string[] = []
  let deadAt: number | undefined
  const link: LivenessLink = {
    awaiting,
    send: (frame) => {
      sent.push(frame)
      if (answerIn && frame.startsWith('["REQ"'))
        clock.timers.setTimeout(() => liveness.heard(eose), answerIn())
    },
    dead: () => {
      deadAt = clock.now()
    },
  }
  const liveness: Liveness = new Liveness(link, {
    quietMs: QUIET,
    probeTimeoutMs: PROBE,
    idleMs: IDLE,
    now: clock.now,
    timers: clock.timers,
  })
  const probes = () => sent.filter((f) => f.startsWith('["REQ"')).length
  return { clock, liveness, sent, probes, deadAt: () => deadAt }
}

const eose = JSON.stringify(['EOSE', PROBE_ID])

describe('the liveness watch', () => {
  it('a send unanswered for 3 s is probed; no answer in 5 s more and the link is dead, 8 s after the send', () => {
    const w = watch()
    w.clock.advance(IDLE)
    expect(w.probes()).toBe(1) // a quiet link is probed after 29 s
    w.clock.advance(1_000)
    w.liveness.heard('["EVENT","sub",{}]') // any frame answers it
    w.clock.advance(1_000)
    w.liveness.sent()
    const at = w.clock.now()
    w.clock.advance(QUIET - 1)
    expect(w.probes()).toBe(1) // the idle one only
    w.clock.advance(1)
    expect(w.probes()).toBe(2)
    expect(JSON.parse(w.sent.at(-1)!)).toEqual(['REQ', PROBE_ID, { ids: ['0'.repeat(64)], limit: 0 }])
    w.clock.advance(PROBE - 1)
    expect(w.deadAt()).toBeUndefined()
    w.clock.advance(1)
    expect(w.deadAt()).toBe(at + QUIET + PROBE)
    expect(w.clock.pending()).toBe(0) // stopped: nothing more
  })

  it('an answered probe is closed, and the link lives on; a quiet link costs one probe per 29 s', () => {
    const w = watch()
    w.liveness.sent()
    w.clock.advance(QUIET)
    expect(w.probes()).toBe(1)
    w.clock.advance(100)
    w.liveness.heard(eose)
    expect(w.sent.at(-1)).toBe(JSON.stringify(['CLOSE', PROBE_ID]))
    w.clock.advance(IDLE - 1)
    expect(w.probes()).toBe(1)
    w.clock.advance(1)
    expect(w.probes()).toBe(2)
    w.liveness.heard(eose)
    w.clock.advance(10 * IDLE)
    expect(w.deadAt()).toBeDefined() // a link that stays silent after that is found dead, even with nothing to send
  })

  it('a probe answered by CLOSED (a relay that wants AUTH first) needs no CLOSE', () => {
    const w = watch()
    w.liveness.sent()
    w.clock.advance(QUIET)
    w.liveness.heard(JSON.stringify(['CLOSED', PROBE_ID, 'auth-required: please']))
    expect(w.sent.filter((f) => f.startsWith('["CLOSE"'))).toEqual([])
    w.clock.advance(PROBE)
    expect(w.deadAt()).toBeUndefined()
  })

  it('something still awaited after a frame arrives (a publish, an EOSE) is probed after 3 s of silence', () => {
    let awaited = true
    const w = watch(() => awaited)
    w.liveness.sent()
    w.clock.advance(1_000)
    w.liveness.heard('["EVENT","sub",{}]') // the link was alive then; the publish still waits
    w.clock.advance(QUIET - 1)
    expect(w.probes()).toBe(0)
    w.clock.advance(1)
    expect(w.probes()).toBe(1)
    w.liveness.heard(eose)
    awaited = false
    w.clock.advance(IDLE - 1)
    expect(w.probes()).toBe(1) // nothing awaited any more: quiet until the idle probe
  })

  it('probes only when needed: a link that answers every send never sees a probe', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: QUIET - 1 }), { maxLength: 40 }), (gaps) => {
        const w = watch()
        for (const gap of gaps) {
          w.liveness.sent()
          w.clock.advance(gap) // the answer comes before 3 s
          w.liveness.heard('["OK","id",true,""]')
        }
        return w.probes() === 0 || w.clock.now() >= IDLE
      }),
    )
  })

  it('a live relay that answers probes in time is never dropped, and gets at most one probe per quiet spell', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 40_000 }), { maxLength: 30 }),
        fc.array(fc.integer({ min: 0, max: PROBE - 1 }), { minLength: 1 }),
        (gaps, delays) => {
          let i = 0
          // Always something awaited (a publish the relay never answers): the most probing case.
          const w = watch(
            () => true,
            () => delays[i++ % delays.length]!,
          )
          for (const gap of gaps) {
            w.liveness.sent()
            w.clock.advance(gap)
          }
          // A probe goes out after 3 s of silence, and the next one only 3 s after its answer.
          return w.deadAt() === undefined && w.probes() <= Math.floor(w.clock.now() / QUIET)
        },
      ),
    )
  })

  it('a link that goes silent is found dead within 8 s of the first send after, whatever came before', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ kind: fc.constantFrom('sent', 'heard'), gap: fc.integer({ min: 0, max: 40_000 }) }),
          {
            maxLength: 30,
          },
        ),
        fc.integer({ min: 0, max: 60_000 }),
        fc.boolean(),
        (history, silentFor, awaited) => {
          const w = watch(() => awaited)
          for (const { kind, gap } of history) {
            if (w.deadAt() !== undefined) return true // an earlier silence already ended it
            if (kind === 'sent') w.liveness.sent()
            else w.liveness.heard(eose) // any frame, the probe's answer included
            w.clock.advance(gap)
          }
          if (w.deadAt() !== undefined) return true
          w.liveness.heard('["EVENT","sub",{}]') // the last frame the relay will ever send
          w.clock.advance(silentFor)
          if (w.deadAt() !== undefined) return true
          w.liveness.sent()
          const at = w.clock.now()
          w.clock.advance(QUIET + PROBE)
          const dead = w.deadAt()
          return dead !== undefined && dead <= at + QUIET + PROBE
        },
      ),
    )
  })
})
