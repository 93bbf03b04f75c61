import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'

/** Upper bounds of the commit latency histogram, seconds. */
const COMMIT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
/** The NIP-01 reason prefixes a refusal is counted under; anything else is `other`. */
const REASONS = new Set([
  'auth-required',
  'blocked',
  'duplicate',
  'error',
  'invalid',
  'mute',
  'pow',
  'rate-limited',
  'restricted',
])

/** What the metrics read at scrape time. */
export interface Gauges {
  connections: number
  subscriptions: number
  verifyQueue: number
}

/**
 * The relay's counters, rendered in Prometheus' text format at `/metrics`: connections,
 * subscriptions, EVENTs by outcome and refusal reason, the commit latency histogram, the
 * signature-check queue and uploads by status. One instance per relay process.
 *
 * @example
 * metrics.event(true, '')
 * metrics.commit(0.004)
 * metrics.render({ connections: 3, subscriptions: 7, verifyQueue: 0 }) // '# HELP roost_connections …'
 */
export class Metrics {
  private readonly events = new Map<string, number>()
  private readonly uploads = new Map<string, number>()
  private readonly buckets = new Array<number>(COMMIT_BUCKETS.length).fill(0)
  private commitSum = 0
  private commitCount = 0

  /** An EVENT was answered: OK true (`duplicate:` counted apart) or refused with `message`. */
  event(ok: boolean, message: string): void {
    const prefix = /^([a-z-]+):/.exec(message)?.[1]
    const key = ok
      ? prefix === 'duplicate'
        ? 'result="duplicate"'
        : 'result="accepted"'
      : `result="refused",reason="${prefix && REASONS.has(prefix) ? prefix : 'other'}"`
    this.events.set(key, (this.events.get(key) ?? 0) + 1)
  }

  /** An EVENT's store unit committed `seconds` after it was queued. */
  commit(seconds: number): void {
    this.commitSum += seconds
    this.commitCount++
    COMMIT_BUCKETS.forEach((le, i) => {
      if (seconds <= le) this.buckets[i] = (this.buckets[i] as number) + 1
    })
  }

  /** An upload (`PUT /upload`) was answered with `status`. */
  upload(status: number): void {
    const key = String(status)
    this.uploads.set(key, (this.uploads.get(key) ?? 0) + 1)
  }

  /** The Prometheus text exposition (format 0.0.4). */
  render(g: Gauges): string {
    const out: string[] = []
    const metric = (name: string, type: string, help: string, lines: string[]) => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...lines)
    }
    metric('roost_connections', 'gauge', 'Open WebSocket connections.', [
      `roost_connections ${g.connections}`,
    ])
    metric('roost_subscriptions', 'gauge', 'Open subscriptions (REQs) over every connection.', [
      `roost_subscriptions ${g.subscriptions}`,
    ])
    metric(
      'roost_events_total',
      'counter',
      'EVENTs answered, by result (accepted, duplicate, refused) and the NIP-01 prefix of a refusal.',
      [...this.events].sort().map(([labels, n]) => `roost_events_total{${labels}} ${n}`),
    )
    metric(
      'roost_commit_seconds',
      'histogram',
      'Time from an EVENT being queued for storage to the commit of its unit.',
      [
        ...COMMIT_BUCKETS.map((le, i) => `roost_commit_seconds_bucket{le="${le}"} ${this.buckets[i]}`),
        `roost_commit_seconds_bucket{le="+Inf"} ${this.commitCount}`,
        `roost_commit_seconds_sum ${this.commitSum}`,
        `roost_commit_seconds_count ${this.commitCount}`,
      ],
    )
    metric('roost_verify_queue_depth', 'gauge', 'Signature checks submitted and not yet answered.', [
      `roost_verify_queue_depth ${g.verifyQueue}`,
    ])
    metric(
      'roost_uploads_total',
      'counter',
      'Blossom uploads (PUT /upload) answered, by HTTP status.',
      [...this.uploads].sort().map(([status, n]) => `roost_uploads_total{status="${status}"} ${n}`),
    )
    return `${out.join('\n')}\n`
  }
}

/**
 * `GET /metrics`: the text exposition for a request with `Authorization: Bearer <token>`; 401
 * for any other. Without a configured token the endpoint is off (404).
 */
export function serveMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  token: string | undefined,
  body: () => string,
): void {
  if (token === undefined) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' })
    res.end('metrics are off (no --metrics-token)\n')
    return
  }
  const given = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] ?? ''
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    res.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8', 'WWW-Authenticate': 'Bearer' })
    res.end('a metrics token is required\n')
    return
  }
  res.writeHead(200, {
    'Content-Type': 'text/plain; version=0.0.4; charset=utf-8',
    'Cache-Control': 'no-store',
  })
  res.end(req.method === 'HEAD' ? undefined : body())
}
