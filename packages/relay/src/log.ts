/** How log lines are written: `text` (a timestamp, then the line) or `json` (one object per line). */
export type LogFormat = 'text' | 'json'

/** Line kinds that report trouble rather than routine traffic. */
const WARN = new Set(['refuse', 'timeout', 'slow', 'stalled', 'banned', 'blocked'])

/**
 * The relay's log lines (`connect 1.2.3.4:5678`, `error … <stack>`, `nip86 <pubkey> banpubkey ok`)
 * formatted for output. In `json` each becomes
 * `{"time":"…","level":"info"|"warn"|"error","event":"<first word>","msg":"<the line>"}`, so a log
 * collector can filter by level and event without parsing text.
 *
 * @example
 * formatLog('json', 'connect 127.0.0.1:5000', new Date(0))
 * // '{"time":"1970-01-01T00:00:00.000Z","level":"info","event":"connect","msg":"connect 127.0.0.1:5000"}'
 */
export function formatLog(format: LogFormat, line: string, at: Date = new Date()): string {
  if (format === 'text') return `${at.toISOString()} ${line}`
  const event = /^[\w-]+/.exec(line)?.[0] ?? ''
  const level = event === 'error' ? 'error' : WARN.has(event) ? 'warn' : 'info'
  return JSON.stringify({ time: at.toISOString(), level, event, msg: line })
}

/** True for lines worth logging without `--verbose`: errors and operator actions, not routine traffic. */
export function isNotable(line: string): boolean {
  return /^(error|nip86|fan-out|closing|closed|banned|blocked)\b/.test(line)
}
