import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'

/**
 * The subscription id of a group's standing REQ: `grp-` and the first 8 hex characters of the
 * SHA-256 of the group key string. NIP-01 caps subscription ids at 64 characters and a key can be
 * longer, so the real key lives in the registry's route table and the id is only a handle.
 *
 * @example
 * groupSubscriptionId("wss://groups.example.com'general") // 'grp-1a2b3c4d'
 */
export function groupSubscriptionId(key: string, salt = 0): string {
  const hex = bytesToHex(sha256(utf8ToBytes(salt ? `${key}#${salt}` : key))).slice(0, 8)
  return `grp-${hex}`
}
