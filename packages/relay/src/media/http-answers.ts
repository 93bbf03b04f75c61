// The small HTTP answers the Blossom handler gives: refusals with their reason, and request bodies it will not read.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { corsHeaders } from './blob-types'
import type { QuotaRefusal } from './upload-quota'

/**
 * After a refusal: a body of declared (and allowed) length is read and dropped so the client sees
 * the answer; a body of unknown length is not read at all, the connection is closed instead.
 */
export function drainOrDrop(req: IncomingMessage): void {
  if (req.headers['content-length'] !== undefined) req.resume()
  else req.destroy()
}

/** A request header's trimmed value, when it was sent once. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name]
  return typeof v === 'string' ? v.trim() : undefined
}

/** 429 with the quota's reason and `Retry-After` (the next UTC day). */
export function overQuota(res: ServerResponse, quota: QuotaRefusal, close = false): void {
  refuse(res, 429, quota.reason, close, { 'Retry-After': String(quota.retryAfter) })
}

/** Answers with a status, a reason in `X-Reason` and the body; `close` drops an unread body. */
export function refuse(
  res: ServerResponse,
  status: number,
  reason: string,
  close = false,
  extra: Record<string, string> = {},
): void {
  if (res.headersSent) return
  const headers: Record<string, string> = {
    ...extra,
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'X-Reason': reason.replace(/[^\x20-\x7e]/g, '?'),
    ...corsHeaders(),
  }
  if (close) headers.Connection = 'close'
  res.writeHead(status, headers)
  res.end(reason)
}
