import { RoostError } from '@roost/nip29'
import { nip77 } from 'nostr-tools'
import type { Filter } from 'nostr-tools/filter'
import type { PolicyRelay } from './policy-relay'

/**
 * A NIP-77 reconciliation that did not finish: the relay's `NEG-ERR` text (`blocked: too many
 * records …`, `auth-required: …`, `closed: …`), or what went wrong on our side (the socket closed,
 * no answer in time, a message we could not read). Callers fall back to REQ.
 *
 * @example
 * try { await pool.reconcile(relay, filter, items) } catch (e) { if (e instanceof NegentropyError) useReq() }
 */
export class NegentropyError extends RoostError {
  constructor(
    /** The relay the reconciliation ran against. */
    readonly relay: string,
    /** The relay's NEG-ERR text, or ours (`timeout:`, `closed:`, `invalid:`). */
    readonly reason: string,
  ) {
    super('negentropy', `${relay}: ${reason}`)
  }
}

/** What a reconciliation learned. */
export interface ReconcileResult {
  /** Ids we hold (among the items given) that the relay does not have for the filter. */
  have: string[]
  /** Ids the relay has for the filter that we do not hold. */
  need: string[]
  /** NEG-MSG round trips. */
  rounds: number
}

/** A record we hold: its id and timestamp. */
export interface ReconcileItem {
  /** The event id (64 hex). */
  id: string
  /** The event's `created_at`, Unix seconds. */
  created_at: number
}

/** Binary bytes of one message we send: its hex stays under the 131,072-byte frames relays accept. */
const FRAME_SIZE = 60_000

/**
 * Runs one NIP-77 session on a connected relay as the initiating side (nostr-tools'
 * `Negentropy`, which was written for it): NEG-OPEN with the filter and our items, NEG-MSG until
 * nothing is left to reconcile, then NEG-CLOSE. Each answer must come within `timeoutMs`.
 * Resolves with the ids each side lacks (deduplicated: the initiator may report one twice when a
 * range is split across frames); rejects with {@link NegentropyError}.
 *
 * @example
 * const { have, need } = await negentropySession(relay, 'neg:1', { '#h': ['general'], since }, items, 10_000)
 */
export function negentropySession(
  relay: PolicyRelay,
  subId: string,
  filter: Filter,
  items: readonly ReconcileItem[],
  timeoutMs: number,
): Promise<ReconcileResult> {
  const storage = new nip77.NegentropyStorageVector()
  const seen = new Set<string>()
  for (const item of items) {
    if (seen.has(item.id)) continue
    seen.add(item.id)
    storage.insert(item.created_at, item.id)
  }
  storage.seal()
  const neg = new nip77.Negentropy(storage, FRAME_SIZE)
  const have = new Set<string>()
  const need = new Set<string>()
  let rounds = 0
  return new Promise<ReconcileResult>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    let settled = false
    // A subscription object only to receive this id's frames (nostr-tools hands unknown frame
    // types to `oncustom`); it is never sent as a REQ.
    const sub = relay.prepareSubscription([{}], { id: subId })
    /** Ends the session: resolved without `error`; `ended` when the relay ended it (no NEG-CLOSE). */
    const finish = (error?: string, ended = false) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      sub.closed = true
      relay.openSubs.delete(subId)
      if (!ended) send(JSON.stringify(['NEG-CLOSE', subId]))
      if (error === undefined) resolve({ have: [...have], need: [...need], rounds })
      else reject(new NegentropyError(relay.url, error))
    }
    const send = (frame: string) => {
      relay.send(frame).catch(() => finish('closed: the connection closed', true))
    }
    const wait = () => {
      clearTimeout(timer)
      timer = setTimeout(() => finish(`timeout: no answer within ${timeoutMs} ms`), timeoutMs)
    }
    sub.onclose = (reason) => finish(`closed: ${reason}`, true)
    sub.oncustom = (data: unknown[]) => {
      if (settled) return
      if (data[0] === 'NEG-ERR') {
        finish(typeof data[2] === 'string' ? data[2] : 'error: no reason given', true)
        return
      }
      if (data[0] !== 'NEG-MSG' || typeof data[2] !== 'string') return
      rounds++
      let next: string | null
      try {
        next = neg.reconcile(
          data[2],
          (id) => have.add(id),
          (id) => need.add(id),
        )
      } catch (err) {
        finish(`invalid: ${err instanceof Error ? err.message : String(err)}`)
        return
      }
      if (next === null) finish()
      else {
        wait()
        send(JSON.stringify(['NEG-MSG', subId, next]))
      }
    }
    wait()
    send(JSON.stringify(['NEG-OPEN', subId, filter, neg.initiate()]))
  })
}
