import type { Filter } from 'nostr-tools'
import type { RelayLimits } from '../limits'

/** A NIP-77 frame from a client, after shape checks (the payload is still hex). */
export type NegMessage =
  | { type: 'NEG-OPEN'; subId: string; filter: Filter; message: string }
  | { type: 'NEG-MSG'; subId: string; message: string }
  | { type: 'NEG-CLOSE'; subId: string }

/** How to answer a NIP-77 frame that was not understood. */
export type NegWireError =
  | { answer: 'NEG-ERR'; subId: string; reason: string }
  | { answer: 'NOTICE'; reason: string }

/**
 * Parses the shape of a `NEG-OPEN`, `NEG-MSG` or `NEG-CLOSE` frame (already JSON-parsed). Pure:
 * never throws. A frame whose subscription id can be read is answered with `NEG-ERR` (which ends
 * that session), others with NOTICE. The filter is checked by `parseFilter`, as a REQ's is.
 *
 * @example
 * parseNegFrame(['NEG-CLOSE', 'n1'], LIMITS, false, parseFilter) // { ok: true, message: { type: 'NEG-CLOSE', subId: 'n1' } }
 */
export function parseNegFrame(
  data: unknown[],
  limits: RelayLimits,
  oversize: boolean,
  parseFilter: (raw: unknown, limits: RelayLimits) => Filter | string,
): { ok: true; message: NegMessage } | { ok: false; error: NegWireError } {
  const type = data[0] as NegMessage['type']
  const subId = data[1]
  if (typeof subId !== 'string' || subId.length === 0 || subId.length > limits.maxSubidLength)
    return {
      ok: false,
      error: {
        answer: 'NOTICE',
        reason: `invalid: ${type} needs a subscription id of 1 to ${limits.maxSubidLength} characters`,
      },
    }
  const err = (reason: string) => ({
    ok: false as const,
    error: { answer: 'NEG-ERR' as const, subId, reason },
  })
  if (oversize) return err('invalid: message too large')
  if (type === 'NEG-CLOSE') {
    if (data.length !== 2) return err('invalid: NEG-CLOSE takes one subscription id')
    return { ok: true, message: { type, subId } }
  }
  if (type === 'NEG-MSG') {
    if (data.length !== 3 || typeof data[2] !== 'string')
      return err('invalid: NEG-MSG takes a subscription id and a hex message')
    return { ok: true, message: { type, subId, message: data[2] } }
  }
  if (data.length !== 4 || typeof data[3] !== 'string')
    return err('invalid: NEG-OPEN takes a subscription id, one filter and a hex message')
  const filter = parseFilter(data[2], limits)
  if (typeof filter === 'string') return err(`invalid: ${filter}`)
  return { ok: true, message: { type: 'NEG-OPEN', subId, filter, message: data[3] } }
}
