import { describe, expect, it } from 'vitest'
import { runSchedule, type SimOptions } from './simulation'

const SCHEDULES = Number(process.env.READ_STATE_SIM_SCHEDULES ?? 500)
const FIRST_SEED = Number(process.env.READ_STATE_SIM_SEED ?? 1)

function optionsFor(seed: number): SimOptions {
  return {
    devices: 3 + (seed % 3), // 3–5 devices
    chaosMs: 60_000 + (seed % 7) * 10_000,
    marks: 12 + (seed % 11),
    drop: [0, 0.05, 0.15, 0.3][seed % 4]!,
    clone: seed % 5 === 0,
  }
}

describe('simulation: devices of one user, two relays, chaos, then healing', () => {
  it(`converges in ${SCHEDULES} seeded schedules (no value goes down, no publish loop, every blob in budget)`, () => {
    const failures: string[] = []
    let publishes = 0
    let marks = 0
    for (let seed = FIRST_SEED; seed < FIRST_SEED + SCHEDULES; seed++) {
      const opts = optionsFor(seed)
      let problem: string | undefined
      try {
        const res = runSchedule(seed, opts)
        publishes += res.publishes
        marks += res.marks
        if (res.violations.length > 0) problem = res.violations.join('; ')
        else if (res.quietPublishes > 0) problem = `${res.quietPublishes} publishes after convergence (loop)`
        else {
          const bound = 8 * (res.marks + opts.devices * 6) + 40
          if (res.publishes > bound) problem = `${res.publishes} publishes > bound ${bound}`
          for (const [i, final] of res.finals.entries()) {
            for (const [ctx, ts] of Object.entries(res.expected)) {
              if ((final[ctx] ?? -1) < ts) problem ??= `device ${i} has ${ctx}=${final[ctx]}, expected ${ts}`
            }
          }
        }
      } catch (err) {
        problem = `threw ${(err as Error).stack}`
      }
      if (problem) {
        failures.push(`seed ${seed} (${JSON.stringify(opts)}): ${problem}`)
        console.error(`read-state simulation FAILED seed=${seed}: ${problem}`)
      }
    }
    console.log(
      `read-state simulation: ${SCHEDULES} schedules (seeds ${FIRST_SEED}..${FIRST_SEED + SCHEDULES - 1}), ${marks} marks, ${publishes} publishes, ${failures.length} failures${failures.length ? `: seeds ${failures.map((f) => f.split(' ')[1]).join(', ')}` : ''}`,
    )
    expect(failures).toEqual([])
  }, 120_000)

  it('a small budget keeps every blob within it and still never loops', () => {
    for (let seed = 9001; seed < 9021; seed++) {
      const res = runSchedule(seed, {
        devices: 3,
        chaosMs: 40_000,
        marks: 20,
        drop: 0.1,
        clone: false,
        budget: 1024,
      })
      expect(res.violations, `seed ${seed}`).toEqual([])
      expect(res.quietPublishes, `seed ${seed}`).toBe(0)
    }
  })

  it('one device evicting (small budget) and others carrying never loop, and every blob fits its own budget', () => {
    let evicting = 0
    for (let seed = 7001; seed < 7041; seed++) {
      const res = runSchedule(seed, {
        devices: 3,
        chaosMs: 40_000,
        marks: 40,
        drop: 0.1,
        clone: false,
        budgets: [1024, 32_768, 32_768],
        extraContexts: 60,
      })
      expect(res.violations, `seed ${seed}`).toEqual([])
      expect(res.quietPublishes, `seed ${seed}: publishes after convergence`).toBe(0)
      // marks made on the carrying devices reach every device; the carriers agree with each other
      // (marks the evicting device dropped before publishing stay on it: the budget's price)
      const carried = { ...res.sim.marksBy.d1 }
      for (const [ctx, ts] of Object.entries(res.sim.marksBy.d2 ?? {}))
        carried[ctx] = Math.max(carried[ctx] ?? 0, ts)
      for (const final of res.finals)
        for (const [ctx, ts] of Object.entries(carried)) {
          expect(final[ctx] ?? -1, `seed ${seed} ${ctx}`).toBeGreaterThanOrEqual(ts)
        }
      expect(res.finals[1], `seed ${seed}`).toEqual(res.finals[2])
      evicting += res.sim.devices[0]!.evicted ? 1 : 0
      expect(res.sim.devices[1]!.evicted).toBe(false)
    }
    expect(evicting).toBeGreaterThan(30) // the small budget really evicts
  })
})
