import {
  type Bound,
  FINGERPRINT_SIZE,
  ID_SIZE,
  MODE_FINGERPRINT,
  MODE_ID_LIST,
  MODE_SKIP,
  NegentropyProtocolError,
  PROTOCOL_VERSION,
  Reader,
  Writer,
} from './codec'
import type { ItemSet } from './item-set'

/** Ranges split into this many buckets when a fingerprint differs (the protocol's constant). */
const BUCKETS = 16
/** Room kept in every frame for the closing range (hoytech's reference keeps the same). */
const FRAME_SLACK = 200
/** The smallest frame the protocol works with. */
export const MIN_FRAME_SIZE = 4096

const INFINITY: Bound = { timestamp: Number.POSITIVE_INFINITY, id: new Uint8Array(0) }

/**
 * The relay's side of Negentropy V1 (NIP-77's appendix): answers one message of the initiating
 * side over a sealed {@link ItemSet}, in at most `frameSize` bytes. Where the peer sends an id
 * list the relay answers with its own ids in that range (what nostr-tools' `Negentropy`, written
 * for the initiating side, does not do); where a fingerprint differs it splits the range into 16.
 * A message in an unknown later version is answered with our version byte alone, as the protocol
 * asks, so the peer can downgrade. Throws {@link NegentropyProtocolError} on a malformed message.
 * Work is bounded by the message and the frame: the ranges are disjoint and ascending, each costs
 * a binary search and a fingerprint (constant time over the set's running sums), and output stops
 * at the frame's end with one fingerprint covering the rest.
 *
 * @example
 * const answer = respond(ItemSet.build(records), fromHex(initialMessage)!, 60_000)
 * conn.send(['NEG-MSG', subId, toHex(answer)])
 */
export function respond(set: ItemSet, message: Uint8Array, frameSize: number): Uint8Array {
  if (frameSize < MIN_FRAME_SIZE) throw new RangeError(`frame size below ${MIN_FRAME_SIZE}`)
  const query = new Reader(message)
  const out = new Writer()
  out.bytes([PROTOCOL_VERSION])
  const version = query.byte()
  if (version < 0x60 || version > 0x6f) throw new NegentropyProtocolError('invalid protocol version byte')
  if (version !== PROTOCOL_VERSION) return out.finish()
  const full = (n: number) => n > frameSize - FRAME_SLACK
  let prevBound: Bound = { timestamp: 0, id: new Uint8Array(0) }
  let prevIndex = 0
  let skip = false
  while (query.remaining > 0) {
    let o = out.part()
    const flushSkip = () => {
      if (!skip) return
      skip = false
      o.bound(prevBound)
      o.varint(MODE_SKIP)
    }
    const currBound = query.bound()
    const mode = query.varint()
    const lower = prevIndex
    let upper = set.lowerBound(prevIndex, set.size, currBound)
    if (mode === MODE_SKIP) skip = true
    else if (mode === MODE_FINGERPRINT) {
      const theirs = query.take(FINGERPRINT_SIZE)
      if (equal(theirs, set.fingerprint(lower, upper))) skip = true
      else {
        flushSkip()
        splitRange(set, lower, upper, currBound, o)
      }
    } else if (mode === MODE_ID_LIST) {
      const count = query.varint()
      if (count * ID_SIZE > query.remaining) throw new NegentropyProtocolError('message ends prematurely')
      query.take(count * ID_SIZE) // the initiator learns the difference; we answer with ours
      flushSkip()
      const ids = out.part()
      let n = 0
      let endBound = currBound
      for (let i = lower; i < upper; i++) {
        if (full(out.length + o.length + ids.length + ID_SIZE)) {
          endBound = { timestamp: set.timestamp(i), id: set.id(i) }
          upper = i
          break
        }
        ids.bytes(set.id(i))
        n++
      }
      o.bound(endBound)
      o.varint(MODE_ID_LIST)
      o.varint(n)
      o.append(ids)
      out.append(o)
      o = out.part()
    } else throw new NegentropyProtocolError(`unexpected mode ${mode}`)
    if (full(out.length + o.length)) {
      // The frame is full: one fingerprint over everything from here on, and the peer asks again.
      out.bound(INFINITY)
      out.varint(MODE_FINGERPRINT)
      out.bytes(set.fingerprint(upper, set.size))
      break
    }
    out.append(o)
    prevIndex = upper
    prevBound = currBound
  }
  return out.finish()
}

/** Fingerprints of 16 buckets, or the ids themselves when the range holds fewer than 32. */
function splitRange(set: ItemSet, lower: number, upper: number, upperBound: Bound, o: Writer): void {
  const n = upper - lower
  if (n < BUCKETS * 2) {
    o.bound(upperBound)
    o.varint(MODE_ID_LIST)
    o.varint(n)
    for (let i = lower; i < upper; i++) o.bytes(set.id(i))
    return
  }
  const per = Math.floor(n / BUCKETS)
  const extra = n % BUCKETS
  let curr = lower
  for (let b = 0; b < BUCKETS; b++) {
    const size = per + (b < extra ? 1 : 0)
    const fingerprint = set.fingerprint(curr, curr + size)
    curr += size
    o.bound(curr === upper ? upperBound : set.separator(curr))
    o.varint(MODE_FINGERPRINT)
    o.bytes(fingerprint)
  }
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
