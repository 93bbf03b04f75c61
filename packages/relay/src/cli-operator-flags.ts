// `roost-relay`'s operator flags: who may manage the relay, which proxies name clients, metrics
// and the log format.
import { isIP } from 'node:net'
import type { LogFormat } from './log'
import type { RelayOptions } from './options'
import { operatorKey } from './settle-options'

/** The operator flags: `--admin`, `--trusted-proxy`, `--metrics-token`, `--log-format`. */
export function operatorFlags(
  values: Record<string, string | boolean | string[] | undefined>,
  env: Record<string, string | undefined>,
): { options: RelayOptions; logFormat?: LogFormat } | string {
  const options: RelayOptions = {}
  if (Array.isArray(values.admin)) {
    const bad = values.admin.find((a) => !operatorKey(a))
    if (bad !== undefined) return `--admin '${bad}' must be a public key (64 hex characters or npub1…)`
    options.admins = values.admin
  }
  if (Array.isArray(values['trusted-proxy'])) {
    const bad = values['trusted-proxy'].find((p) => isIP(p) === 0)
    if (bad !== undefined) return `--trusted-proxy '${bad}' must be an IP address`
    options.trustedProxies = values['trusted-proxy']
  }
  const token = values['metrics-token'] ?? env.ROOST_METRICS_TOKEN
  if (typeof token === 'string') {
    if (!/^[\x21-\x7e]{16,}$/.test(token))
      return '--metrics-token must be at least 16 printable characters without spaces'
    options.metricsToken = token
  }
  const format = values['log-format']
  if (format !== undefined && format !== 'text' && format !== 'json')
    return `--log-format must be text or json, not '${format}'`
  return format === undefined ? { options } : { options, logFormat: format }
}
