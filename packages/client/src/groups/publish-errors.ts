import { isPreviousRefusal } from '@roost/nip29'
import { AuthRequiredError, PublishRefusedError, PublishTimeoutError, RelayUnreachableError } from '../errors'
import type { PublishResult } from '../pool'

/**
 * Matches `previous` rejections: the fiatjaf family's "previous id '…' wasn't found in this
 * relay/group" and a minimum-count "at least 3 previous references are required".
 */
export function isPreviousRejection(message: string): boolean {
  return isPreviousRefusal(message)
}

/** Turns a failed publish result into the typed error a caller branches on. */
export function publishError(result: PublishResult, timeoutMs: number): Error {
  if (result.timedOut) {
    const notice = /NOTICE: (.*)$/.exec(result.message)?.[1]
    return new PublishTimeoutError(result.relay, timeoutMs, notice)
  }
  if (result.failure === 'auth') return new AuthRequiredError(result.relay, result.message)
  if (result.failure === 'unreachable') return new RelayUnreachableError(result.relay, result.message)
  return new PublishRefusedError(result.relay, result.message)
}
