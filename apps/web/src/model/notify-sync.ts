/**
 * The notification levels kept with the account: one NIP-78 app-data event (kind 30078, `d` tag
 * {@link NOTIFY_LEVELS_D}), its content the levels as JSON, NIP-44 encrypted to the user through
 * the signer, on the user's relays. A device adopts the newest event it finds at sign-in unless
 * it changed a level itself later; each change publishes the whole set again.
 */
import type { RelayPool, Signer } from '@roost/client'
import type { NostrEvent } from 'nostr-tools'
import type { NotifyLevel } from './types'

export const APP_DATA_KIND = 30078
export const NOTIFY_LEVELS_D = 'roost/notify-levels'
const LEVELS: readonly NotifyLevel[] = ['all', 'mentions', 'muted']

/** The levels in a decrypted content; anything unreadable is dropped. */
export function parseLevels(json: string): Record<string, NotifyLevel> {
  const out: Record<string, NotifyLevel> = {}
  try {
    const raw: unknown = JSON.parse(json)
    if (raw && typeof raw === 'object' && !Array.isArray(raw))
      for (const [key, level] of Object.entries(raw))
        if (LEVELS.includes(level as NotifyLevel)) out[key] = level as NotifyLevel
  } catch {
    // Not ours, or damaged: nothing to adopt.
  }
  return out
}

export class NotifySync {
  constructor(
    private readonly opts: {
      pubkey: string
      signer: Signer
      pool: () => Pick<RelayPool, 'fetch' | 'publish'>
      relays: () => string[]
    },
  ) {}

  /** The newest levels on the relays with their time, or undefined when there are none (or they do not open). */
  async load(): Promise<{ levels: Record<string, NotifyLevel>; at: number } | undefined> {
    const events: NostrEvent[] = await this.opts
      .pool()
      .fetch(
        this.opts.relays(),
        [{ kinds: [APP_DATA_KIND], authors: [this.opts.pubkey], '#d': [NOTIFY_LEVELS_D], limit: 1 }],
        { timeout: 8000 },
      )
      .catch(() => [])
    const newest = events
      .filter((e) => e.pubkey === this.opts.pubkey)
      .sort((a, b) => b.created_at - a.created_at)[0]
    if (!newest) return undefined
    try {
      const plain = await this.opts.signer.nip44.decrypt(this.opts.pubkey, newest.content)
      return { levels: parseLevels(plain), at: newest.created_at }
    } catch {
      return undefined
    }
  }

  /** Publishes the whole set (only the levels other than `all`), encrypted to self. */
  async save(levels: Record<string, NotifyLevel>): Promise<void> {
    const kept = Object.fromEntries(Object.entries(levels).filter(([, l]) => l !== 'all'))
    const content = await this.opts.signer.nip44.encrypt(this.opts.pubkey, JSON.stringify(kept))
    const event = await this.opts.signer.signEvent({
      kind: APP_DATA_KIND,
      created_at: Math.floor(Date.now() / 1000),
      tags: [['d', NOTIFY_LEVELS_D]],
      content,
    })
    await this.opts.pool().publish(this.opts.relays(), event)
  }
}

const atKey = (pubkey: string) => `roost.notify-at.${pubkey}`

/** When this device last changed a level (unix seconds; 0 when never). */
export function localChangeAt(pubkey: string): number {
  try {
    return Number(localStorage.getItem(atKey(pubkey))) || 0
  } catch {
    return 0
  }
}

export function setLocalChangeAt(pubkey: string, at: number): void {
  try {
    localStorage.setItem(atKey(pubkey), String(at))
  } catch {
    // Storage refused: the relays' copy wins at the next sign-in.
  }
}
