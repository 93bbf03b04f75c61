import { CallTokenError } from '@roost/client'
import type { LiveKitToken } from '@roost/nip29'
import type { CallAnswer } from './api'

const REASON_TEXT: Record<string, string> = {
  unavailable: 'This relay does not offer calls.',
  auth: 'The relay did not accept our sign-in for the call',
  refused: 'The relay does not let you join this call',
  unreachable: 'Could not reach the relay for a call token',
  'bad-answer': 'The relay sent an unusable call token',
}

/** A call token request as the UI shows it: the token, or the reason in words with the relay's text. */
export async function callAnswer(run: () => Promise<LiveKitToken>): Promise<CallAnswer> {
  try {
    const { url, token } = await run()
    return { ok: true, message: '', url, token }
  } catch (err) {
    if (err instanceof CallTokenError) {
      const base = REASON_TEXT[err.reason] ?? 'No call token'
      return { ok: false, message: err.relayMessage ? `${base}: ${err.relayMessage}` : base }
    }
    return { ok: false, message: err instanceof Error ? err.message : String(err) }
  }
}
