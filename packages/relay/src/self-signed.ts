// A self-signed X.509 certificate for local TLS, written in DER by hand: node:crypto makes and
// signs keys but has no certificate builder, and this is all one certificate needs (about 100 lines
// against a dependency). Node's own X509Certificate (OpenSSL) parses and checks what comes out.
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto'
import { isIPv4 } from 'node:net'

/** A private key and its self-signed certificate, both PEM. */
export interface KeyAndCertificate {
  key: string
  cert: string
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2'
const COMMON_NAME = '2.5.4.3'
const BASIC_CONSTRAINTS = '2.5.29.19'
const KEY_USAGE = '2.5.29.15'
const EXT_KEY_USAGE = '2.5.29.37'
const SUBJECT_ALT_NAME = '2.5.29.17'
const SUBJECT_KEY_ID = '2.5.29.14'
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1'

function tlv(tag: number, body: Buffer): Buffer {
  const n = body.length
  const len = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff]
  return Buffer.concat([Buffer.from([tag, ...len]), body])
}
const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items))
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items))
const octets = (b: Buffer) => tlv(0x04, b)
const bits = (b: Buffer, unused = 0) => tlv(0x03, Buffer.concat([Buffer.from([unused]), b]))
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]))
const explicit = (n: number, b: Buffer) => tlv(0xa0 + n, b)
const int = (b: Buffer) => tlv(0x02, (b[0] as number) & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b)

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number)
  const out = [40 * a + b]
  for (const n of rest) {
    const groups = [n & 0x7f]
    for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) groups.unshift((v & 0x7f) | 0x80)
    out.push(...groups)
  }
  return tlv(0x06, Buffer.from(out))
}

/** UTCTime before 2050, GeneralizedTime from then on (RFC 5280 4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14)
  return d.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`))
    : tlv(0x18, Buffer.from(`${iso}Z`))
}

function ipBytes(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from(ip.split('.').map(Number))
  const [head = '', tail = ''] = ip.split('::')
  const h = head ? head.split(':') : []
  const t = tail ? tail.split(':') : []
  const groups = ip.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h
  return Buffer.from(groups.flatMap((g) => [Number.parseInt(g, 16) >> 8, Number.parseInt(g, 16) & 0xff]))
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [bool(true)] : []), octets(value))
}

/**
 * Makes an ECDSA P-256 key and a self-signed certificate for `hosts` (names and IP addresses, in
 * its subjectAltName), valid from a minute before `now` for `days` days. It is its own authority
 * (CA:TRUE), so it can be imported as a trusted root, and it says `serverAuth`.
 *
 * @example
 * const { key, cert } = selfSignedCertificate(['localhost', '127.0.0.1', '::1'])
 * https.createServer({ key, cert })
 */
export function selfSignedCertificate(
  hosts: readonly string[],
  { now = new Date(), days = 365, name = 'Roost local relay' } = {},
): KeyAndCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const spki = publicKey.export({ type: 'spki', format: 'der' })
  const serial = randomBytes(16)
  serial[0] = ((serial[0] as number) & 0x7f) | 0x40
  const subject = seq(set(seq(oid(COMMON_NAME), tlv(0x0c, Buffer.from(name, 'utf8')))))
  const from = new Date(now.getTime() - 60_000)
  const to = new Date(now.getTime() + days * 86_400_000)
  const names = hosts.map((h) =>
    isIPv4(h) || h.includes(':') ? tlv(0x87, ipBytes(h)) : tlv(0x82, Buffer.from(h)),
  )
  const extensions = seq(
    extension(BASIC_CONSTRAINTS, true, seq(bool(true))),
    // digitalSignature (bit 0) and keyCertSign (bit 5): 0b10000100, its last 2 bits unused.
    extension(KEY_USAGE, true, bits(Buffer.from([0x84]), 2)),
    extension(EXT_KEY_USAGE, false, seq(oid(SERVER_AUTH))),
    extension(SUBJECT_ALT_NAME, false, seq(...names)),
    extension(SUBJECT_KEY_ID, false, octets(createHash('sha1').update(spki).digest())),
  )
  const algorithm = seq(oid(ECDSA_WITH_SHA256))
  const tbs = seq(
    explicit(0, int(Buffer.from([2]))),
    int(serial),
    algorithm,
    subject,
    seq(time(from), time(to)),
    subject,
    spki,
    explicit(3, extensions),
  )
  const der = seq(tbs, algorithm, bits(sign('sha256', tbs, privateKey)))
  const lines = der.toString('base64').match(/.{1,64}/g) ?? []
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    cert: `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`,
  }
}
