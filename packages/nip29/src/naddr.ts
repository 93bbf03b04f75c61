import * as nip19 from 'nostr-tools/nip19'
import { InvalidArgumentError } from './errors'
import { assertHex64 } from './hex'
import { KINDS } from './kinds'

const utf8 = new TextEncoder()

/** An naddr TLV value holds at most 255 bytes (one length byte); nip19 would silently corrupt more. */
function assertTlv(value: string, argument: string): void {
  if (utf8.encode(value).length > 255) {
    throw new InvalidArgumentError(argument, `${argument} is longer than the 255 bytes an naddr can hold`)
  }
}

/** Appends `?invite=<code>` (percent-encoded) when a code is given. */
export function withInvite(base: string, invite: string | undefined): string {
  return invite === undefined || invite === '' ? base : `${base}?invite=${encodeURIComponent(invite)}`
}

/** Reads an invite code written by {@link withInvite}; a malformed escape is taken literally. */
export function readInvite(query: string): string | undefined {
  for (const pair of query.split('&')) {
    const eq = pair.indexOf('=')
    if (eq < 0 || pair.slice(0, eq) !== 'invite') continue
    const raw = pair.slice(eq + 1)
    let code: string
    try {
      code = decodeURIComponent(raw)
    } catch {
      code = raw
    }
    return code === '' ? undefined : code
  }
  return undefined
}

/** The kind 39000 naddr of a group (nip19 does the bech32). */
export function encodeGroupNaddr(id: string, relay: string, relayKey: string, invite?: string): string {
  assertHex64(relayKey, 'relayKey')
  assertTlv(id, 'id')
  assertTlv(relay, 'relay')
  const naddr = nip19.naddrEncode({ kind: KINDS.metadata, pubkey: relayKey, identifier: id, relays: [relay] })
  return withInvite(naddr, invite)
}
