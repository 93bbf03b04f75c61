/** NIP-86 calls as a client makes them, for the relay's NIP-86 tests. */
import { nip98 } from 'nostr-tools'
import { finalizeEvent } from 'nostr-tools/pure'
import { expect } from 'vitest'
import type { RelayHandle, RelayOptions } from '../src/index'
import { relay, type User, user } from './helpers'

export const RPC = 'application/nostr+json+rpc'
export const httpOf = (r: RelayHandle) => r.url.replace(/^ws/, 'http')

export interface Answer {
  status: number
  body: { result?: unknown; error?: string }
}

/** A NIP-86 call as a client makes it: nostr-tools' NIP-98 token over the exact body sent. */
export async function call(
  r: RelayHandle,
  who: User,
  method: string,
  params: unknown[] = [],
): Promise<Answer> {
  const payload = { method, params }
  const authorization = await nip98.getToken(
    httpOf(r),
    'POST',
    (t) => finalizeEvent(t, who.sk),
    true,
    payload,
  )
  return post(r, JSON.stringify(payload), { authorization })
}

export async function post(r: RelayHandle, body: string, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(httpOf(r), { method: 'POST', headers: { 'content-type': RPC, ...headers }, body })
  const text = await res.text()
  let parsed: Answer['body'] = {}
  try {
    parsed = JSON.parse(text)
  } catch {}
  return { status: res.status, body: parsed }
}

export async function setup(opts: RelayOptions = {}) {
  const op = user()
  const r = await relay({ admins: [op.pk], ...opts })
  const ok = async (method: string, params: unknown[] = []) => {
    const a = await call(r, op, method, params)
    expect(a, `${method} ${JSON.stringify(a.body)}`).toMatchObject({ status: 200 })
    return a.body.result
  }
  return { r, op, ok }
}
