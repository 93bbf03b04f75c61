// `--tls`: a local self-signed certificate kept in the data directory, and how to trust it.
import { X509Certificate } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { selfSignedCertificate } from './self-signed'

/** The names a local certificate is made for. */
export const LOCAL_HOSTS = ['localhost', '127.0.0.1', '::1'] as const

/** A certificate is made again when it expires within this many days. */
const RENEW_DAYS = 30

/** The local certificate: its PEMs, where it is kept, whether this run made it, and its fingerprint. */
export interface LocalCertificate {
  /** The private key, PEM. */
  key: string
  /** The certificate, PEM. */
  cert: string
  /** The certificate's file (what a client or a trust store is given). */
  certPath: string
  /** The private key's file. */
  keyPath: string
  /** Made on this run (first run, or the previous one was expiring). */
  created: boolean
  /** SHA-256 fingerprint, as browsers show it (`AB:CD:…`). */
  fingerprint: string
  /** When the certificate expires. */
  validTo: Date
}

/**
 * The certificate `--tls` serves: `tls-cert.pem` and `tls-key.pem` in `dir`, made on first run (for
 * localhost, 127.0.0.1 and ::1, valid a year) and made again when missing, unreadable or within 30
 * days of expiring; kept otherwise, so a client that trusts it once keeps trusting it.
 *
 * @example
 * const { key, cert, certPath } = localCertificate('.roost')
 * await startRelay({ tls: { key, cert } })
 */
export function localCertificate(dir: string, now = new Date()): LocalCertificate {
  const certPath = join(dir, 'tls-cert.pem')
  const keyPath = join(dir, 'tls-key.pem')
  const kept = existsSync(certPath) && existsSync(keyPath) ? read(certPath, keyPath) : undefined
  const fresh = kept && validTo(kept.x509).getTime() - now.getTime() > RENEW_DAYS * 86_400_000
  if (kept && fresh) return describe(kept, certPath, keyPath, false)
  mkdirSync(dir, { recursive: true })
  const made = selfSignedCertificate(LOCAL_HOSTS, { now })
  writeFileSync(keyPath, made.key, { mode: 0o600 })
  writeFileSync(certPath, made.cert)
  return describe({ ...made, x509: new X509Certificate(made.cert) }, certPath, keyPath, true)
}

function read(certPath: string, keyPath: string) {
  try {
    const cert = readFileSync(certPath, 'utf8')
    return { cert, key: readFileSync(keyPath, 'utf8'), x509: new X509Certificate(cert) }
  } catch {
    return undefined
  }
}

function describe(
  c: { key: string; cert: string; x509: X509Certificate },
  certPath: string,
  keyPath: string,
  created: boolean,
): LocalCertificate {
  return {
    key: c.key,
    cert: c.cert,
    certPath,
    keyPath,
    created,
    fingerprint: c.x509.fingerprint256,
    validTo: validTo(c.x509),
  }
}

/**
 * Lines telling how to trust a local certificate, for a relay served at `httpsUrl`.
 *
 * @example
 * console.log(trustHint(local, 'https://127.0.0.1:7777').join('\n'))
 */
export function trustHint(c: LocalCertificate, httpsUrl: string): string[] {
  return [
    `  TLS certificate:  ${c.certPath}${c.created ? ' (new)' : ''}, self-signed for localhost, 127.0.0.1 and ::1`,
    `                    SHA-256 ${c.fingerprint}, until ${c.validTo.toISOString().slice(0, 10)}`,
    `  to trust it:      browsers: open ${httpsUrl} once and accept it (check the fingerprint),`,
    '                    or import the file as a trusted authority; Node: NODE_EXTRA_CA_CERTS=<file>;',
    '                    curl: --cacert <file>; Debian/Ubuntu: sudo cp <file> /usr/local/share/ca-certificates/',
    '                    roost-local.crt && sudo update-ca-certificates; macOS: sudo security add-trusted-cert',
    '                    -d -r trustRoot -k /Library/Keychains/System.keychain <file>',
  ]
}

/** When a certificate stops being valid (`validToDate` is Node 22's; its text form parses everywhere). */
function validTo(x: X509Certificate): Date {
  return new Date(x.validTo)
}
