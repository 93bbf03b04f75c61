import { randomBytes } from 'node:crypto'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import { generateSecretKey } from 'nostr-tools/pure'
import { RelayOptionError } from './errors'

/** Parses a secret key given as 64 hex characters or 32 bytes; throws a RelayError otherwise. */
export function secretKeyBytes(key: string | Uint8Array): Uint8Array {
  if (key instanceof Uint8Array) {
    if (key.length !== 32) throw new RelayOptionError('secretKey must be 32 bytes')
    return key
  }
  if (!/^[0-9a-fA-F]{64}$/.test(key)) throw new RelayOptionError('secretKey must be 64 hex characters')
  return hexToBytes(key.toLowerCase())
}

/** Loads a key kept under `name`, or generates and keeps one. */
export async function keptKey(
  get: (k: string) => Promise<string | undefined>,
  set: (k: string, v: string) => Promise<void>,
  name: string,
): Promise<Uint8Array> {
  const stored = await get(name)
  if (stored && /^[0-9a-f]{64}$/.test(stored)) return hexToBytes(stored)
  const fresh = generateSecretKey()
  await set(name, bytesToHex(fresh))
  return fresh
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** A random id from `[a-z0-9]`, the portable group-id charset. */
export function randomId(length: number): string {
  const bytes = randomBytes(length)
  let out = ''
  for (const b of bytes) out += ID_ALPHABET[b % ID_ALPHABET.length]
  return out
}
