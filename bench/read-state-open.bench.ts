/**
 * Opening read state: 20 full-budget blobs (kind 30078, ~32 KiB plaintext each) as a device finds
 * them at start-up. Ours: LocalSigner's NIP-44 (native base64), then `parseBlob` (every content
 * rule) and `mergeContexts` of all twenty. Baseline, same events, same run: nostr-tools
 * `nip44.decrypt` + `JSON.parse`, no validation, no merge. Signatures are checked before either
 * (decision i) and cost the same on both sides, so they are left out (see verify.bench.ts).
 *
 * The blobs are real: each comes from a ReadStateEngine of its own (a device) that marked 700
 * contexts (groups on three relays, threads, single messages), trimmed them to the 32,768-byte
 * budget and asked for a publish; the plaintext is encrypted to self and signed, as
 * ReadStateSync does.
 */

import { GroupKey } from '@roost/nip29'
import {
  type Contexts,
  type Effect,
  mergeContexts,
  messageContext,
  parseBlob,
  publishTemplate,
  ReadStateEngine,
  readSlot,
  threadContext,
} from '@roost/read-state'
import type { NostrEvent } from 'nostr-tools/core'
import * as nip44 from 'nostr-tools/nip44'
import { LocalSigner } from '../packages/client/src/signers'
import { record } from './lib'

const DEVICES = 20
const MARKS = 700
const ROUNDS = 15
const signer = LocalSigner.fromSecret('7f7ff03d123792d6ac594bfa67bf6d0c0ab55b6b1fdb6249303fe861f1ccba9a')
const me = signer.publicKey
const relays = ['wss://groups.example.com', 'wss://relay.roost.chat', 'wss://nip29.community.org']
const hex = (n: number) => n.toString(16).padStart(64, '0')

/** One device's blob: its engine, fed local marks, asked to flush, answered with an empty own coordinate. */
async function deviceBlob(device: number): Promise<NostrEvent> {
  let ids = 0
  const nowMs = 1_700_100_000_000 + device * 1000
  const engine = new ReadStateEngine({
    pubkey: me,
    clock: () => nowMs,
    randomId: () => `${device.toString(16).padStart(4, '0')}${(ids++).toString(16).padStart(28, '0')}`,
  })
  engine.start()
  engine.loaded([])
  for (let i = 0; i < MARKS; i++) {
    const ts = 1_700_000_000 + ((i * 7919 + device * 104_729) % 86_400)
    const group = new GroupKey(relays[i % relays.length]!, `group-${(i * 37) % 500}`).toString()
    const ctx =
      i % 10 === 8 ? threadContext(hex(i * 31 + 1)) : i % 10 === 9 ? messageContext(hex(i * 17 + 2)) : group
    engine.markRead(ctx, ts)
  }
  const fetchOwn = engine.flush().find((e) => e.type === 'fetch-own')
  if (fetchOwn?.type !== 'fetch-own') throw new Error('no read-before-write')
  const publish = engine.ownFetched(fetchOwn.ref, []).find((e) => e.type === 'publish') as
    | Extract<Effect, { type: 'publish' }>
    | undefined
  if (!publish) throw new Error('no publish')
  const content = await signer.nip44.encrypt(me, publish.plaintext)
  return signer.signEvent(publishTemplate(publish, content))
}

const events: NostrEvent[] = []
for (let d = 0; d < DEVICES; d++) events.push(await deviceBlob(d))
const conversationKey = nip44.getConversationKey(signer.secretKey, me)
const plaintextBytes = events.map(
  (e) => new TextEncoder().encode(nip44.decrypt(e.content, conversationKey)).length,
)
const entries = events.map(
  (e) => Object.keys(JSON.parse(nip44.decrypt(e.content, conversationKey)).contexts).length,
)

/** Ours: envelope check, decrypt to self, validate, merge. Returns the merged map. */
async function openOurs(): Promise<Record<string, number>> {
  const maps: Contexts[] = []
  for (const event of events) {
    if (!readSlot(event, { pubkey: me }).ok) throw new Error('bad envelope')
    const parsed = parseBlob(await signer.nip44.decrypt(me, event.content))
    if (!parsed.ok) throw new Error(parsed.reason)
    maps.push(parsed.blob.contexts)
  }
  return mergeContexts(...maps)
}

/** Baseline: nostr-tools decrypt + JSON.parse of the same payloads (conversation key computed once). */
function openBaseline(): unknown[] {
  return events.map((e) => JSON.parse(nip44.decrypt(e.content, conversationKey)))
}

// Same result check: our merge equals the max over what nostr-tools decrypted.
const expected: Record<string, number> = {}
for (const blob of openBaseline() as { contexts: Record<string, number> }[]) {
  for (const [k, ts] of Object.entries(blob.contexts)) expected[k] = Math.max(expected[k] ?? 0, ts)
}
const merged = await openOurs()
if (JSON.stringify(Object.entries(merged).sort()) !== JSON.stringify(Object.entries(expected).sort())) {
  throw new Error('merged contexts differ from the baseline decryption')
}

async function pass(open: () => unknown): Promise<number> {
  const start = performance.now()
  await open()
  return (DEVICES * 1000) / (performance.now() - start)
}

// Warm both paths, then alternate rounds so load from elsewhere on the machine hits both.
for (let i = 0; i < 3; i++) {
  await pass(openOurs)
  await pass(openBaseline)
}
let ours = 0
let baseline = 0
for (let r = 0; r < ROUNDS; r++) {
  baseline = Math.max(baseline, await pass(openBaseline))
  ours = Math.max(ours, await pass(openOurs))
}
const avg = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length)
record({
  name: `read-state-open-${DEVICES}-full-budget`,
  unit: 'blob',
  ours,
  baseline,
  notes: `${DEVICES} signed kind 30078 blobs from ReadStateEngine publishes, plaintext ${Math.min(...plaintextBytes)}–${Math.max(...plaintextBytes)} B (avg ${avg(plaintextBytes)}, ${avg(entries)} contexts), ${Object.keys(merged).length} contexts merged; ours: LocalSigner.nip44.decrypt (own NIP-44, native base64) + readSlot + parseBlob + mergeContexts; baseline: nostr-tools nip44.decrypt + JSON.parse; signatures excluded on both sides; best of ${ROUNDS}`,
})
