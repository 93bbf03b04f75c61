import { describe, expect, test } from 'vitest'
import {
  ACCOUNT_KEYS,
  isGroupUrl,
  PREPAINT_MAX_CHARS,
  type PrepaintRecord,
  parseRecord,
  recordMatches,
  serializeRecord,
  signedInAccount,
  widthClass,
} from '../../src/lib/prepaint'
import { BOOT_KEY } from '../../src/model/boot-store'
import { SESSION_KEY } from '../../src/model/session'

const ada = 'a'.repeat(64)
const record: PrepaintRecord = {
  v: 1,
  url: "/#/g/ws%3A%2F%2F127.0.0.1%3A7777'garden",
  pubkey: ada,
  width: widthClass(1280, false),
  html: '<div class="app">Hello</div>',
}

function storage(entries: Record<string, string>): Pick<Storage, 'getItem'> {
  return { getItem: (k) => entries[k] ?? null }
}

describe('the pre-paint record', () => {
  test('round-trips, and a malformed or oversized one is no record', () => {
    expect(parseRecord(serializeRecord(record))).toEqual(record)
    for (const bad of [
      null,
      '',
      '{',
      'null',
      JSON.stringify({ ...record, v: 2 }),
      JSON.stringify({ ...record, pubkey: 'Ada' }),
      JSON.stringify({ ...record, html: 1 }),
      JSON.stringify({ ...record, url: undefined }),
    ])
      expect(parseRecord(bad), String(bad)).toBeUndefined()
    const big = { ...record, html: 'x'.repeat(PREPAINT_MAX_CHARS) }
    expect(serializeRecord(big)).toBeUndefined()
    expect(parseRecord(JSON.stringify(big))).toBeUndefined()
  })

  test('is shown only at its own group address, for its account, at its width', () => {
    const now = { url: record.url, pubkey: ada, width: widthClass(1280, false) }
    expect(recordMatches(record, now)).toBe(true)
    expect(recordMatches(record, { ...now, url: "/#/g/ws%3A%2F%2F127.0.0.1%3A7777'orchard" })).toBe(false)
    expect(recordMatches(record, { ...now, url: '/#/browse' })).toBe(false)
    expect(recordMatches(record, { ...now, pubkey: 'b'.repeat(64) })).toBe(false)
    expect(recordMatches(record, { ...now, pubkey: undefined })).toBe(false)
    expect(recordMatches(record, { ...now, width: widthClass(1279, false) })).toBe(false)
    expect(recordMatches(record, { ...now, width: widthClass(1280, true) })).toBe(false)
    // A record of another page than a group's is never shown, even at its own address.
    expect(recordMatches({ ...record, url: '/#/' }, { ...now, url: '/#/' })).toBe(false)
    expect(isGroupUrl('/#/g/')).toBe(false)
  })

  test('reads the signed-in account where the session and the boot record keep it', () => {
    expect(ACCOUNT_KEYS).toEqual({ session: SESSION_KEY, boot: BOOT_KEY })
    const boot = JSON.stringify({ pubkey: ada, reads: [] })
    expect(signedInAccount(storage({ [SESSION_KEY]: '{}', [BOOT_KEY]: boot }))).toBe(ada)
    // Signed out (no session), or no account's cache opened yet: no account.
    expect(signedInAccount(storage({ [BOOT_KEY]: boot }))).toBeUndefined()
    expect(signedInAccount(storage({ [SESSION_KEY]: '{}' }))).toBeUndefined()
    expect(signedInAccount(storage({ [SESSION_KEY]: '{}', [BOOT_KEY]: '{"pubkey":"x"}' }))).toBeUndefined()
    expect(signedInAccount(storage({ [SESSION_KEY]: '{}', [BOOT_KEY]: '{' }))).toBeUndefined()
  })
})
