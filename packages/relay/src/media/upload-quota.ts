// Daily upload quotas per key and for the whole relay, kept in memory (per process).
import { RelayOptionError } from '../errors'

/**
 * Caps on uploads per UTC day (the `uploadQuota` option); 0 turns one off. Each has a CLI flag and
 * a NIP-11 `limitation` field (see the relay README).
 *
 * @example
 * await startRelay({ uploadQuota: { uploadsPerKeyPerDay: 20, bytesPerDay: 512 * 1024 * 1024 } })
 */
export interface UploadQuota {
  /** Uploads one key may make per day (100). */
  uploadsPerKeyPerDay: number
  /** Bytes one key may upload per day (200 MiB). */
  bytesPerKeyPerDay: number
  /** Uploads the relay takes per day from everyone together (2,000). */
  uploadsPerDay: number
  /** Bytes the relay takes per day from everyone together (2 GiB). */
  bytesPerDay: number
}

/** The quotas when the operator sets none. */
export const DEFAULT_UPLOAD_QUOTA: Readonly<UploadQuota> = {
  uploadsPerKeyPerDay: 100,
  bytesPerKeyPerDay: 200 * 1024 * 1024,
  uploadsPerDay: 2_000,
  bytesPerDay: 2 * 1024 * 1024 * 1024,
}

/** The quotas in force: the defaults with the operator's overrides, each checked. */
export function settleUploadQuota(overrides: Partial<UploadQuota> = {}): UploadQuota {
  const quota = { ...DEFAULT_UPLOAD_QUOTA, ...overrides }
  for (const [name, value] of Object.entries(quota))
    if (!Number.isSafeInteger(value) || value < 0)
      throw new RelayOptionError(`uploadQuota.${name} must be an integer, 0 or more (0: no cap)`)
  return quota
}

/** Why an upload is over quota (429), and when the day's count starts over. */
export interface QuotaRefusal {
  readonly reason: string
  /** Seconds until the next UTC day. */
  readonly retryAfter: number
}

/** Room taken for one upload: settle it with the size received, or release it when nothing was. */
export interface QuotaTicket {
  /** The most bytes this upload may have within the quotas (Infinity without a byte cap). */
  readonly limit: number
  settle(bytes: number): void
  release(): void
}

const DAY = 86_400

interface Used {
  bytes: number
  count: number
}

/**
 * What each key and the relay have uploaded today (UTC), against {@link UploadQuota}. Room is
 * taken before a body is read (its declared length, or all the room left when undeclared), so
 * uploads running side by side cannot overshoot together; the received size settles it.
 *
 * @example
 * const quotas = new UploadQuotas(settleUploadQuota(), () => Math.floor(Date.now() / 1000))
 * const taken = quotas.take(pubkey, declaredLength) // a QuotaRefusal, or { ticket }
 */
export class UploadQuotas {
  #day = -1
  #keys = new Map<string, Used>()
  #total: Used = { bytes: 0, count: 0 }

  constructor(
    readonly quota: UploadQuota,
    private readonly clock: () => number,
  ) {}

  /** Whether an upload of `bytes` (undefined: not said) by `pubkey` would fit now; takes nothing. */
  check(pubkey: string, bytes: number | undefined): QuotaRefusal | undefined {
    return this.#refusal(pubkey, bytes)
  }

  /** Takes room for one upload of `bytes` (undefined: not said), or says why there is none. */
  take(pubkey: string, bytes: number | undefined): QuotaRefusal | { ticket: QuotaTicket } {
    const refused = this.#refusal(pubkey, bytes)
    if (refused) return refused
    const key = this.#used(pubkey, true)
    const room = this.#room(key)
    const reserved = bytes ?? (Number.isFinite(room) ? room : 0)
    const day = this.#day
    const total = this.#total
    key.count++
    key.bytes += reserved
    total.count++
    total.bytes += reserved
    let open = true
    const adjust = (count: number, delta: number) => {
      if (!open || day !== this.#day) return
      open = false
      key.count += count
      key.bytes += delta
      total.count += count
      total.bytes += delta
    }
    return {
      ticket: {
        limit: bytes ?? room,
        settle: (received) => adjust(0, received - reserved),
        release: () => adjust(-1, -reserved),
      },
    }
  }

  #refusal(pubkey: string, bytes: number | undefined): QuotaRefusal | undefined {
    const key = this.#used(pubkey, false)
    const q = this.quota
    const retryAfter = DAY - (this.clock() % DAY)
    const refuse = (reason: string): QuotaRefusal => ({
      reason: `${reason}; the count starts over at 00:00 UTC`,
      retryAfter,
    })
    if (q.uploadsPerKeyPerDay && key.count >= q.uploadsPerKeyPerDay)
      return refuse(`daily upload quota reached for this key: ${q.uploadsPerKeyPerDay} uploads a day`)
    if (q.uploadsPerDay && this.#total.count >= q.uploadsPerDay)
      return refuse(`this relay's daily upload quota is reached: ${q.uploadsPerDay} uploads a day`)
    const keyRoom = q.bytesPerKeyPerDay ? q.bytesPerKeyPerDay - key.bytes : Number.POSITIVE_INFINITY
    const totalRoom = q.bytesPerDay ? q.bytesPerDay - this.#total.bytes : Number.POSITIVE_INFINITY
    if (keyRoom <= 0 || (bytes !== undefined && bytes > keyRoom))
      return refuse(`daily upload quota reached for this key: ${q.bytesPerKeyPerDay} bytes a day`)
    if (totalRoom <= 0 || (bytes !== undefined && bytes > totalRoom))
      return refuse(`this relay's daily upload quota is reached: ${q.bytesPerDay} bytes a day`)
    return undefined
  }

  #room(key: Used): number {
    const q = this.quota
    const keyRoom = q.bytesPerKeyPerDay ? q.bytesPerKeyPerDay - key.bytes : Number.POSITIVE_INFINITY
    const totalRoom = q.bytesPerDay ? q.bytesPerDay - this.#total.bytes : Number.POSITIVE_INFINITY
    return Math.max(0, Math.min(keyRoom, totalRoom))
  }

  /**
   * The key's use today (a new day starts every count over); kept only once it `take`s, so the
   * keys remembered are those that uploaded today (at most `uploadsPerDay`).
   */
  #used(pubkey: string, keep: boolean): Used {
    const day = Math.floor(this.clock() / DAY)
    if (day !== this.#day) {
      this.#day = day
      this.#keys = new Map()
      this.#total = { bytes: 0, count: 0 }
    }
    let used = this.#keys.get(pubkey)
    if (!used) {
      used = { bytes: 0, count: 0 }
      if (keep) this.#keys.set(pubkey, used)
    }
    return used
  }
}
