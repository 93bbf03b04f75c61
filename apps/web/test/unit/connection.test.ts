import { describe, expect, test } from 'vitest'
import { ConnectionWatch, connectionState } from '../../src/model/connection'

function watch(opts: { online: boolean; connected: Set<string>; relays: string[] }) {
  let now = 0
  let changes = 0
  const w = new ConnectionWatch({
    relays: () => opts.relays,
    connected: (r) => opts.connected.has(r),
    browserOnline: () => opts.online,
    onChange: () => changes++,
    grace: 4000,
    backFor: 4000,
    now: () => now,
  })
  return {
    w,
    at(ms: number) {
      now = ms
      w.check()
      return w.current
    },
    changes: () => changes,
  }
}

describe('connection state', () => {
  test('pure step: offline wins, connecting within the grace, unreachable after it or during an outage', () => {
    const base = {
      browserOnline: true,
      down: ['wss://r'],
      downFor: 0,
      grace: 4000,
      everDown: false,
      back: false,
    }
    expect(connectionState({ ...base, browserOnline: false }).status).toBe('offline')
    expect(connectionState(base).status).toBe('connecting')
    expect(connectionState({ ...base, downFor: 4000 }).status).toBe('unreachable')
    expect(connectionState({ ...base, everDown: true }).status).toBe('unreachable')
    expect(connectionState({ ...base, down: [], back: true })).toEqual({
      status: 'online',
      down: [],
      back: true,
    })
  })

  test('a relay that never connects becomes unreachable after the grace; coming back shows "back" for a while', () => {
    const opts = { online: true, connected: new Set<string>(), relays: ['wss://r'] }
    const t = watch(opts)
    expect(t.at(0).status).toBe('connecting')
    expect(t.w.offline).toBe(false)
    expect(t.at(4000).status).toBe('unreachable')
    expect(t.w.offline).toBe(true)
    opts.connected.add('wss://r')
    expect(t.at(5000)).toEqual({ status: 'online', down: [], back: true })
    expect(t.at(9001)).toEqual({ status: 'online', down: [], back: false })
    t.w.close()
  })

  test('the browser going offline is offline at once, whatever the sockets say', () => {
    const opts = { online: true, connected: new Set(['wss://r']), relays: ['wss://r'] }
    const t = watch(opts)
    expect(t.at(0).status).toBe('online')
    opts.online = false
    expect(t.at(1).status).toBe('offline')
    expect(t.w.offline).toBe(true)
    opts.online = true
    expect(t.at(2)).toMatchObject({ status: 'online', back: true })
    t.w.close()
  })

  test('no groups, no relays to watch: online', () => {
    const t = watch({ online: true, connected: new Set(), relays: [] })
    expect(t.at(10_000).status).toBe('online')
    expect(t.changes()).toBe(0)
    t.w.close()
  })
})
