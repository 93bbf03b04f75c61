import { nip77 } from 'nostr-tools'
const { Negentropy, NegentropyStorageVector } = nip77
import { randomBytes } from 'node:crypto'
import { ItemSet } from '../src/negentropy/item-set'
import { respond } from '../src/negentropy/responder'
import { fromHex, toHex } from '../src/negentropy/codec'
// @ts-ignore
import * as hoy from '../../../node_modules/applesauce-relay/dist/lib/negentropy.js'

async function run(nA: number, nB: number, common: number, frame = 60000, useHoy = false) {
  const mk = (n: number) => Array.from({ length: n }, () => ({ timestamp: 1700000000 + Math.floor(Math.random() * 1000), id: randomBytes(32).toString('hex') }))
  const shared = mk(common)
  const a = [...shared, ...mk(nA)]
  const b = [...shared, ...mk(nB)]
  const sv = new NegentropyStorageVector()
  for (const r of a) sv.insert(r.timestamp, r.id)
  sv.seal()
  const neg = new Negentropy(sv, 60000)
  const set = ItemSet.build(b)
  let hs: any
  if (useHoy) { const s = new hoy.NegentropyStorageVector(); for (const r of b) s.insert(r.timestamp, r.id); s.seal(); hs = new hoy.Negentropy(s, frame) }
  let msg: string | null = neg.initiate()
  const have: string[] = [], need: string[] = []
  let rounds = 0, bytes = 0
  while (msg) {
    const ans = useHoy ? (await hs.reconcile(msg))[0] : toHex(respond(set, fromHex(msg)!, frame))
    bytes += ans.length / 2
    rounds++
    msg = neg.reconcile(ans, (id) => have.push(id), (id) => need.push(id))
  }
  const A = new Set(a.map((r) => r.id)), B = new Set(b.map((r) => r.id))
  const expHave = [...A].filter((x) => !B.has(x)).sort(), expNeed = [...B].filter((x) => !A.has(x)).sort()
  console.log(useHoy ? 'hoy' : 'ours', nA, nB, common, 'rounds', rounds, 'bytes', bytes, JSON.stringify([...new Set(have)].sort()) === JSON.stringify(expHave), JSON.stringify([...new Set(need)].sort()) === JSON.stringify(expNeed), have.length, need.length, new Set(have).size, new Set(need).size)
}
await run(3000, 3000, 0, 4096); await run(3000, 3000, 0, 4096, true)
await run(3000, 3000, 0, 60000); await run(3000, 3000, 0, 60000, true)
