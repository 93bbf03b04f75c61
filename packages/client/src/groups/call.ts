import {
  encodeAuthHeader,
  type GroupKey,
  httpAuthTemplate,
  type LiveKitToken,
  livekitTokenUrl,
  parseLiveKitToken,
  RoostError,
} from '@roost/nip29'
import type { Signer } from '../signers'

/**
 * Why a call token could not be had:
 * - `unavailable`: the relay offers no audio/video (404 on the LiveKit endpoint);
 * - `auth`: the relay refused our NIP-98 authorization (401);
 * - `refused`: we may not join this group's call (403: not a member, or no call in this group);
 * - `unreachable`: the request failed or the relay answered with another error status;
 * - `bad-answer`: the relay's 200 was not `{ url, token }`.
 */
export type CallTokenReason = 'unavailable' | 'auth' | 'refused' | 'unreachable' | 'bad-answer'

/**
 * `Group.callToken()` failed; `reason` to branch on, `status` the HTTP status when there was one and
 * `relayMessage` the relay's own `error` text.
 *
 * @example
 * try { await group.callToken() } catch (err) {
 *   if (err instanceof CallTokenError && err.reason === 'refused') show(err.relayMessage)
 * }
 */
export class CallTokenError extends RoostError {
  constructor(
    /** What went wrong, to branch on. */
    readonly reason: CallTokenReason,
    detail: string,
    /** The relay's HTTP status; undefined when the request itself failed. */
    readonly status?: number,
    /** The relay's `error` text from its JSON answer; undefined when it sent none. */
    readonly relayMessage?: string,
  ) {
    super('call-token', detail)
  }
}

/** What {@link fetchCallToken} needs. */
export interface CallTokenRequest {
  /** The group whose call to join; its relay issues the token. */
  key: GroupKey
  /** Signs the NIP-98 authorization. */
  signer: Signer
  /** Unix seconds, for the NIP-98 `created_at`. */
  clock: () => number
  /** The fetch to use (default `globalThis.fetch`). */
  fetch?: typeof globalThis.fetch
}

/**
 * The clock of NIP-98 authorizations: each is used once, so two asked for within one second must
 * differ; each `created_at` is at least one past the last.
 * @example const clock = authClock(() => Math.floor(Date.now() / 1000))
 */
export function authClock(clock: () => number): () => number {
  let last = 0
  return () => {
    last = Math.max(clock(), last + 1)
    return last
  }
}

/**
 * Asks the group's relay for a LiveKit token: a signed NIP-98 event (kind 27235, `u` = the token
 * URL, `method` = GET) in `Authorization`, to `GET /.well-known/nip29/livekit/<group>`.
 *
 * @throws {CallTokenError} with the reason the relay gave.
 * @example const { url, token } = await fetchCallToken({ key, signer, clock })
 */
export async function fetchCallToken(req: CallTokenRequest): Promise<LiveKitToken> {
  const url = livekitTokenUrl(req.key.relay, req.key.id)
  const auth = await req.signer.signEvent(httpAuthTemplate({ url, method: 'GET', createdAt: req.clock() }))
  let res: Response
  try {
    res = await (req.fetch ?? globalThis.fetch)(url, { headers: { authorization: encodeAuthHeader(auth) } })
  } catch (err) {
    throw new CallTokenError('unreachable', `${req.key.relay}: ${(err as Error).message}`)
  }
  let body: unknown
  try {
    body = await res.json()
  } catch {
    body = undefined
  }
  const message =
    typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string'
      ? ((body as { error: string }).error as string)
      : undefined
  if (res.ok) {
    try {
      return parseLiveKitToken(body)
    } catch (err) {
      throw new CallTokenError('bad-answer', (err as Error).message, res.status)
    }
  }
  const reason: CallTokenReason =
    res.status === 404
      ? 'unavailable'
      : res.status === 401
        ? 'auth'
        : res.status === 403
          ? 'refused'
          : 'unreachable'
  const fallback =
    reason === 'unavailable'
      ? `${req.key.relay} offers no audio/video calls`
      : `${req.key.relay} answered ${res.status}`
  throw new CallTokenError(reason, message ?? fallback, res.status, message)
}
