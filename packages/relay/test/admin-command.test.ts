/**
 * `roost-relay admin <method> [params]`: the real command in its own process, signing with the key
 * in ROOST_ADMIN_KEY, against a relay over real HTTP.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { bytesToHex } from '@noble/hashes/utils.js'
import { nip19 } from 'nostr-tools'
import { describe, expect, it } from 'vitest'
import { RawClient, relay, user } from './helpers'

const BIN = fileURLToPath(new URL('../bin/roost-relay.mjs', import.meta.url))

function admin(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, 'admin', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ROOST_ADMIN_KEY: '', ROOST_RELAY_URL: '', ...env },
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => {
    out += d
  })
  child.stderr.on('data', (d) => {
    err += d
  })
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })))
}

// Each call starts a Node process: seconds each on a loaded machine.
describe('roost-relay admin', { timeout: 90_000 }, () => {
  it("calls NIP-86 with the operator's key from the environment (nsec or hex) and prints the result", async () => {
    const op = user()
    const r = await relay({ admins: [op.pk] })
    const bad = user()
    const nsec = nip19.nsecEncode(op.sk)
    const ban = await admin(['--url', r.url, 'banpubkey', bad.pk, 'spam'], { ROOST_ADMIN_KEY: nsec })
    expect(ban).toMatchObject({ code: 0, out: 'true\n' })
    const raw = await RawClient.open(r.url)
    expect(await raw.publish(bad.sign({ kind: 0 }))).toMatchObject({ ok: false, message: /banned/ })

    const list = await admin(['listbannedpubkeys'], {
      ROOST_ADMIN_KEY: bytesToHex(op.sk),
      ROOST_RELAY_URL: r.url,
    })
    expect(list.code).toBe(0)
    expect(JSON.parse(list.out)).toEqual([{ pubkey: bad.pk, reason: 'spam' }])
    // A kind is sent as a number.
    expect((await admin(['--url', r.url, 'allowkind', '0'], { ROOST_ADMIN_KEY: nsec })).code).toBe(0)
    expect(
      JSON.parse((await admin(['--url', r.url, 'listallowedkinds'], { ROOST_ADMIN_KEY: nsec })).out),
    ).toEqual([0])
  })

  it('exits non-zero with the reason: a key that is not an operator, no key, a bad call', async () => {
    const op = user()
    const r = await relay({ admins: [op.pk] })
    const stranger = await admin(['--url', r.url, 'supportedmethods'], {
      ROOST_ADMIN_KEY: nip19.nsecEncode(user().sk),
    })
    expect(stranger.code).toBe(1)
    expect(stranger.err).toMatch(/restricted: only the relay operators/)
    const none = await admin(['--url', r.url, 'supportedmethods'], {})
    expect(none.code).toBe(2)
    expect(none.err).toMatch(/ROOST_ADMIN_KEY/)
    const wrong = await admin(['--url', r.url, 'banpubkey', 'nope'], {
      ROOST_ADMIN_KEY: nip19.nsecEncode(op.sk),
    })
    expect(wrong.code).toBe(1)
    expect(wrong.err).toMatch(/invalid: /)
  })
})
