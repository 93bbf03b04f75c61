import { sha256 } from '@noble/hashes/sha2.js'
import { type Bound, encodeVarint, FINGERPRINT_SIZE, ID_SIZE } from './codec'

/** Limbs of 32 bits in one 256-bit sum. */
const LIMBS = 8

/**
 * A sealed, sorted set of (timestamp, id) records, as Negentropy orders them: timestamp ascending,
 * then id bytes ascending. Alongside, the running sums of the ids (mod 2^256, as little-endian
 * numbers), so the fingerprint of any range costs one subtraction and one SHA-256 whatever its
 * length: a peer's message costs the relay work in proportion to the message, not to the set.
 * 72 bytes per record. Pure.
 *
 * @example
 * const set = ItemSet.build([{ timestamp: 1700000000, id: 'ab…' }])
 * set.fingerprint(0, set.size) // 16 bytes
 */
export class ItemSet {
  private constructor(
    readonly size: number,
    private readonly timestamps: Float64Array,
    private readonly ids: Uint8Array,
    /** sums[i] = ids[0] + … + ids[i-1] (mod 2^256), 8 little-endian u32 limbs each. */
    private readonly sums: Uint32Array,
  ) {}

  /**
   * Sorts and seals records; `id` is 64 hex characters. Throws on a malformed id; duplicates are
   * dropped (a store answers each id once, so none are expected).
   */
  static build(records: readonly { timestamp: number; id: string }[]): ItemSet {
    const order = records
      .map((r) => r)
      .sort((a, b) => a.timestamp - b.timestamp || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    const unique = order.filter(
      (r, i) => i === 0 || r.id !== order[i - 1]?.id || r.timestamp !== order[i - 1]?.timestamp,
    )
    const n = unique.length
    const timestamps = new Float64Array(n)
    const ids = new Uint8Array(n * ID_SIZE)
    const sums = new Uint32Array((n + 1) * LIMBS)
    for (let i = 0; i < n; i++) {
      const r = unique[i] as { timestamp: number; id: string }
      if (!/^[0-9a-f]{64}$/.test(r.id)) throw new TypeError(`not an event id: ${r.id}`)
      timestamps[i] = r.timestamp
      ids.set(Buffer.from(r.id, 'hex'), i * ID_SIZE)
    }
    const view = new DataView(ids.buffer)
    for (let i = 0; i < n; i++) {
      let carry = 0
      for (let l = 0; l < LIMBS; l++) {
        const s = (sums[i * LIMBS + l] as number) + view.getUint32(i * ID_SIZE + l * 4, true) + carry
        sums[(i + 1) * LIMBS + l] = s >>> 0
        carry = s > 0xffffffff ? 1 : 0
      }
    }
    return new ItemSet(n, timestamps, ids, sums)
  }

  timestamp(i: number): number {
    return this.timestamps[i] as number
  }

  id(i: number): Uint8Array {
    return this.ids.subarray(i * ID_SIZE, (i + 1) * ID_SIZE)
  }

  /** The first index in [begin, end) whose record is not below `bound` (end when none). */
  lowerBound(begin: number, end: number, bound: Bound): number {
    let lo = begin
    let hi = end
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.below(mid, bound)) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** True when record i sorts before the bound (its id prefix padded with zeros). */
  private below(i: number, bound: Bound): boolean {
    const t = this.timestamps[i] as number
    if (t !== bound.timestamp) return t < bound.timestamp
    const base = i * ID_SIZE
    for (let k = 0; k < bound.id.length; k++) {
      const a = this.ids[base + k] as number
      const b = bound.id[k] as number
      if (a !== b) return a < b
    }
    return false
  }

  /** SHA-256 of the ids' sum (mod 2^256) and the count as a varint, first 16 bytes. */
  fingerprint(begin: number, end: number): Uint8Array {
    const sum = new Uint8Array(ID_SIZE)
    const out = new DataView(sum.buffer)
    let borrow = 0
    for (let l = 0; l < LIMBS; l++) {
      const d = (this.sums[end * LIMBS + l] as number) - (this.sums[begin * LIMBS + l] as number) - borrow
      borrow = d < 0 ? 1 : 0
      out.setUint32(l * 4, d < 0 ? d + 0x100000000 : d, true)
    }
    const count = encodeVarint(end - begin)
    const input = new Uint8Array(ID_SIZE + count.length)
    input.set(sum)
    input.set(count, ID_SIZE)
    return sha256(input).subarray(0, FINGERPRINT_SIZE)
  }

  /**
   * The shortest bound that separates record i-1 from record i: record i's timestamp alone when
   * they differ, else the shared id prefix plus one byte.
   */
  separator(i: number): Bound {
    const t = this.timestamps[i] as number
    if (this.timestamps[i - 1] !== t) return { timestamp: t, id: new Uint8Array(0) }
    const prev = this.id(i - 1)
    const curr = this.id(i)
    let shared = 0
    while (shared < ID_SIZE && prev[shared] === curr[shared]) shared++
    return { timestamp: t, id: curr.slice(0, shared + 1) }
  }
}
