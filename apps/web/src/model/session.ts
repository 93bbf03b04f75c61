/**
 * Sign-in methods and their persistence. A generated or pasted key is kept in this browser's
 * localStorage (the user is told so and can export it); extensions and bunkers keep the key.
 */
import { LocalSigner, Nip07Signer, Nip46Signer, type Signer } from '@roost/client'
import { generateSecretKey } from 'nostr-tools'
import { bytesToHex, hexToBytes } from 'nostr-tools/utils'
import { forgetPrepaint } from '../lib/prepaint'
import { forgetBoot } from './boot-store'

export type SignInRequest =
  | { method: 'local'; secret: string; relays: string[]; name?: string }
  | { method: 'nip07'; relays: string[] }
  | { method: 'nip46'; bunker: string; relays: string[] }

type Stored =
  | { method: 'local'; nsec: string; relays: string[] }
  | { method: 'nip07'; relays: string[] }
  | { method: 'nip46'; bunker: string; clientSecret: string; relays: string[] }

export const SESSION_KEY = 'roost.session.v1'
const KEY = SESSION_KEY

export interface OpenSession {
  signer: Signer
  pubkey: string
  method: Stored['method']
  nsec?: string
  relays: string[]
  /** Display name chosen at sign-up, to publish as kind 0. */
  name?: string
  close(): void
}

/** The relay that served this page (`?relay=` overrides, for `vite dev`). */
export function defaultRelay(loc: Location = location): string {
  const override = new URLSearchParams(loc.search).get('relay')
  if (override) return override
  return `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}`
}

async function open(stored: Stored): Promise<OpenSession> {
  if (stored.method === 'local') {
    const signer = LocalSigner.fromSecret(stored.nsec)
    return {
      signer,
      pubkey: await signer.getPublicKey(),
      method: 'local',
      nsec: signer.nsec(),
      relays: stored.relays,
      close() {},
    }
  }
  if (stored.method === 'nip07') {
    if (!window.nostr) throw new Error('No NIP-07 extension in this browser.')
    const signer = new Nip07Signer(window.nostr)
    return { signer, pubkey: await signer.getPublicKey(), method: 'nip07', relays: stored.relays, close() {} }
  }
  // The session key towards the bunker is kept, so a reload reconnects without a new approval.
  const signer = await Nip46Signer.connect(stored.bunker, {
    clientSecretKey: hexToBytes(stored.clientSecret),
  })
  return {
    signer,
    pubkey: await signer.getPublicKey(),
    method: 'nip46',
    relays: stored.relays,
    close: () => void signer.close().catch(() => undefined),
  }
}

/** Signs in and remembers the method in this browser. Throws with a readable message. */
export async function signIn(request: SignInRequest): Promise<OpenSession> {
  const relays = request.relays.length > 0 ? request.relays : [defaultRelay()]
  let stored: Stored
  if (request.method === 'local') {
    if (!request.secret) throw new Error('Paste your secret key (nsec1…).')
    let signer: LocalSigner
    try {
      signer = LocalSigner.fromSecret(request.secret)
    } catch {
      throw new Error('That is not a valid secret key. It starts with nsec1 (or is 64 hex characters).')
    }
    stored = { method: 'local', nsec: signer.nsec(), relays }
  } else if (request.method === 'nip07') stored = { method: 'nip07', relays }
  else {
    if (!/^bunker:\/\//.test(request.bunker)) throw new Error('A bunker URL starts with bunker://')
    stored = {
      method: 'nip46',
      bunker: request.bunker,
      clientSecret: bytesToHex(generateSecretKey()),
      relays,
    }
  }
  const session = await open(stored)
  localStorage.setItem(KEY, JSON.stringify(stored))
  return { ...session, name: request.method === 'local' ? request.name : undefined }
}

/** The session remembered in this browser, if any. */
export async function restore(): Promise<OpenSession | undefined> {
  const raw = localStorage.getItem(KEY)
  if (!raw) return undefined
  try {
    return await open(JSON.parse(raw) as Stored)
  } catch {
    return undefined
  }
}

export function saveRelays(relays: string[]): void {
  const raw = localStorage.getItem(KEY)
  if (!raw) return
  const stored = JSON.parse(raw) as Stored
  localStorage.setItem(KEY, JSON.stringify({ ...stored, relays }))
}

export function forget(): void {
  localStorage.removeItem(KEY)
  // Nothing of the account's last view is painted for the next one to see.
  forgetPrepaint(localStorage)
  forgetBoot()
}

/** A new key for the sign-up screen, shown as nsec before it is used. */
export function generateKey(): { nsec: string; npub: string } {
  const signer = LocalSigner.generate()
  return { nsec: signer.nsec(), npub: '' }
}
