/** Display helpers: short keys, times and stable colors for avatars without a picture. */
import { nip19 } from 'nostr-tools'

const npubs = new Map<string, string>()

/**
 * A hex pubkey's npub, encoded once per key: a timeline shows the same few people on every row
 * (names, avatars, twins' suffixes), and bech32 is not cheap at that rate. Throws as
 * `npubEncode` does.
 */
export function npubOf(pubkey: string): string {
  let npub = npubs.get(pubkey)
  if (npub === undefined) {
    npub = nip19.npubEncode(pubkey)
    if (npubs.size >= 5000) npubs.clear()
    npubs.set(pubkey, npub)
  }
  return npub
}

/** `npub1abcd…wxyz` for a hex pubkey. */
export function shortNpub(pubkey: string): string {
  try {
    const npub = npubOf(pubkey)
    return `${npub.slice(0, 10)}…${npub.slice(-4)}`
  } catch {
    return pubkey.slice(0, 8)
  }
}

const timeFmt = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' })
const dayFmt = new Intl.DateTimeFormat(undefined, { weekday: 'long', month: 'short', day: 'numeric' })
const fullFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

export function formatTime(seconds: number): string {
  return timeFmt.format(new Date(seconds * 1000))
}
export function formatDay(seconds: number): string {
  return dayFmt.format(new Date(seconds * 1000))
}
export function formatFull(seconds: number): string {
  return fullFmt.format(new Date(seconds * 1000))
}

/** Same calendar day in local time. */
export function sameDay(a: number, b: number): boolean {
  const x = new Date(a * 1000)
  const y = new Date(b * 1000)
  return x.getFullYear() === y.getFullYear() && x.getMonth() === y.getMonth() && x.getDate() === y.getDate()
}

/** A hue from a hex key, so each person keeps one color. */
export function hueOf(key: string): number {
  let h = 0
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) % 360
  return h
}

/** One or two letters for an avatar placeholder. */
export function initials(name: string): string {
  const words = name
    .replace(/^npub1/, '')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
  const letters =
    words.length > 1 ? [words[0]!, words[1]!].map((w) => [...w][0]) : [...(words[0] ?? '?')].slice(0, 2)
  return letters.join('').toUpperCase()
}
