import { randomBytes } from 'node:crypto'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import { generateSecretKey } from 'nostr-tools/pure'
import { RelayOptionError } from './errors'
import type { EventStore } from './store/store'

/** Parses a secret key given as 64 hex characters or 32 bytes; throws a RelayError otherwise. */
export function secretKeyBytes(key: string | Uint8Array): Uint8Array {
  if (key instanceof Uint8Array) {
    if (key.length !== 32) throw new RelayOptionError('secretKey must be 32 bytes')
    return key
  }
  if (!/^[0-9a-fA-F]{64}$/.test(key)) throw new RelayOptionError('secretKey must be 64 hex characters')
  return hexToBytes(key.toLowerCase())
}

/**
 * Loads a key kept under `name` in the store's settings, or generates and keeps one. A fresh key is
 * claimed (kept only when none is), so processes starting together on one database agree on it.
 */
export async function keptKey(
  meta: Pick<EventStore, 'getMeta' | 'setMeta' | 'claimMeta'>,
  name: string,
): Promise<Uint8Array> {
  const stored = await meta.getMeta(name)
  if (stored !== undefined && KEY_HEX.test(stored)) return hexToBytes(stored)
  const fresh = bytesToHex(generateSecretKey())
  if (stored !== undefined) {
    // A kept value that is not a key (edited by hand) is replaced.
    await meta.setMeta(name, fresh)
    return hexToBytes(fresh)
  }
  const kept = await meta.claimMeta(name, fresh)
  return hexToBytes(KEY_HEX.test(kept) ? kept : fresh)
}

const KEY_HEX = /^[0-9a-f]{64}$/

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789'

/** A random id from `[a-z0-9]`, the portable group-id charset. */
export function randomId(length: number): string {
  const bytes = randomBytes(length)
  let out = ''
  for (const b of bytes) out += ID_ALPHABET[b % ID_ALPHABET.length]
  return out
}
