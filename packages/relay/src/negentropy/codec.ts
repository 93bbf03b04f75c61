/**
 * The byte-level parts of Negentropy protocol V1 (NIP-77's appendix): varints, bounds with their
 * delta-encoded timestamps, and a reader that refuses hostile input instead of misreading it. Pure.
 */

/** The protocol version byte this relay speaks (V1). */
export const PROTOCOL_VERSION = 0x61
export const ID_SIZE = 32
export const FINGERPRINT_SIZE = 16

export const MODE_SKIP = 0
export const MODE_FINGERPRINT = 1
export const MODE_ID_LIST = 2

/** A varint of more than 8 digits (56 bits) is never a timestamp or a count a peer means. */
const MAX_VARINT_DIGITS = 8

/**
 * A message that does not follow the protocol: the session ends with `NEG-ERR`.
 *
 * @example
 * try { respond(set, bytes, 60_000) } catch (e) { if (e instanceof NegentropyProtocolError) answer(`invalid: ${e.message}`) }
 */
export class NegentropyProtocolError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'NegentropyProtocolError'
  }
}

/**
 * A range's upper bound: a timestamp (`Infinity` is the reserved "infinity") and an id prefix of
 * 0 to 32 bytes, the missing bytes read as zeros.
 */
export interface Bound {
  timestamp: number
  id: Uint8Array
}

/**
 * Reads a message front to back; every read checks the bytes are there.
 *
 * @example
 * const r = new Reader(bytes)
 * r.byte() // 0x61, the version
 * const { timestamp, id } = r.bound()
 */
export class Reader {
  private at = 0
  /** The previous timestamp read in this message (bounds are delta-encoded). */
  private lastTimestamp = 0

  constructor(private readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.length - this.at
  }

  byte(): number {
    if (this.at >= this.bytes.length) throw new NegentropyProtocolError('message ends prematurely')
    return this.bytes[this.at++] as number
  }

  take(n: number): Uint8Array {
    if (n > this.remaining) throw new NegentropyProtocolError('message ends prematurely')
    const out = this.bytes.subarray(this.at, this.at + n)
    this.at += n
    return out
  }

  /** A varint, refused past 2^53 (no safe integer) or past 8 digits. */
  varint(): number {
    let n = 0
    for (let digits = 1; ; digits++) {
      if (digits > MAX_VARINT_DIGITS) throw new NegentropyProtocolError('varint too long')
      const b = this.byte()
      n = n * 128 + (b & 0x7f)
      if ((b & 0x80) === 0) break
    }
    if (n > Number.MAX_SAFE_INTEGER) throw new NegentropyProtocolError('varint too large')
    return n
  }

  bound(): Bound {
    const encoded = this.varint()
    let timestamp: number
    if (encoded === 0 || this.lastTimestamp === Number.POSITIVE_INFINITY) timestamp = Number.POSITIVE_INFINITY
    else {
      timestamp = this.lastTimestamp + encoded - 1
      if (timestamp > Number.MAX_SAFE_INTEGER) throw new NegentropyProtocolError('timestamp too large')
    }
    this.lastTimestamp = timestamp
    const length = this.varint()
    if (length > ID_SIZE) throw new NegentropyProtocolError('bound id prefix longer than 32 bytes')
    return { timestamp, id: this.take(length) }
  }
}

/**
 * Writes a message; bounds are delta-encoded against the previous one written to this writer or to
 * any writer {@link Writer.part} made from it (parts are written in message order).
 *
 * @example
 * const w = new Writer()
 * w.bytes([PROTOCOL_VERSION])
 * w.bound({ timestamp: Number.POSITIVE_INFINITY, id: new Uint8Array(0) })
 * w.varint(MODE_SKIP)
 * w.finish() // Uint8Array [0x61, 0, 0, 0]
 */
export class Writer {
  private chunks: Uint8Array[] = []
  private size = 0

  constructor(private readonly last: { timestamp: number } = { timestamp: 0 }) {}

  get length(): number {
    return this.size
  }

  bytes(b: Uint8Array | readonly number[]): void {
    const chunk = b instanceof Uint8Array ? b : Uint8Array.from(b)
    this.chunks.push(chunk)
    this.size += chunk.length
  }

  varint(n: number): void {
    this.bytes(encodeVarint(n))
  }

  bound(b: Bound): void {
    if (b.timestamp === Number.POSITIVE_INFINITY) {
      this.last.timestamp = Number.POSITIVE_INFINITY
      this.varint(0)
    } else {
      this.varint(b.timestamp - this.last.timestamp + 1)
      this.last.timestamp = b.timestamp
    }
    this.varint(b.id.length)
    this.bytes(b.id)
  }

  /** Appends what a part holds. */
  append(part: Writer): void {
    for (const c of part.chunks) this.bytes(c)
  }

  /**
   * A writer for the next part of the same message, sharing the timestamp deltas: a part that is
   * dropped (the frame is full) is only ever followed by the infinity bound, which needs no delta.
   */
  part(): Writer {
    return new Writer(this.last)
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size)
    let at = 0
    for (const c of this.chunks) {
      out.set(c, at)
      at += c.length
    }
    return out
  }
}

/**
 * Base-128 digits, most significant first, the high bit on every digit but the last.
 *
 * @example
 * encodeVarint(300) // Uint8Array [0x82, 0x2c]
 */
export function encodeVarint(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`varint out of range: ${n}`)
  const digits: number[] = [n % 128]
  let rest = Math.floor(n / 128)
  while (rest > 0) {
    digits.push((rest % 128) | 0x80)
    rest = Math.floor(rest / 128)
  }
  return Uint8Array.from(digits.reverse())
}

const HEX = /^(?:[0-9a-fA-F]{2})*$/

/**
 * Decodes a hex payload (any case); undefined when it is not hex.
 *
 * @example
 * fromHex('61') // Uint8Array [0x61]; fromHex('6') // undefined
 */
export function fromHex(hex: string): Uint8Array | undefined {
  if (!HEX.test(hex)) return undefined
  return Uint8Array.from(Buffer.from(hex, 'hex'))
}

/**
 * Lowercase hex of some bytes.
 *
 * @example
 * toHex(Uint8Array.of(0x61)) // '61'
 */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}
