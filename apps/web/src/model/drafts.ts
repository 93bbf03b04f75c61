/**
 * What the message boxes hold, on this device: one draft per box (a group's box is named by its
 * group key, a thread's reply box by the group key and the thread's root), kept in memory for
 * switching groups and in localStorage for reloads. Typing writes to storage debounced; a draft
 * emptied by a send or by hand is removed at once, and text that comes back from a failed send is
 * written at once, so a reload never brings back what was sent nor loses what was not.
 */
import type { Drafts } from './api'
import type { Draft, DraftMention } from './types'

/** The draft of a box that holds nothing. */
export const EMPTY_DRAFT: Draft = Object.freeze({
  text: '',
  mentions: Object.freeze([]) as readonly DraftMention[],
})

const HEX64 = /^[0-9a-f]{64}$/

/** Whether a draft holds anything worth keeping (an error alone is not). */
export function isEmptyDraft(d: Draft): boolean {
  return d.text === '' && d.mentions.length === 0 && d.replyTo === undefined && !d.media?.length
}

/** A stored draft as written by {@link DraftBook}, or undefined when it is not one. */
export function parseStoredDraft(raw: string | null): Draft | undefined {
  if (raw === null) return undefined
  let v: unknown
  try {
    v = JSON.parse(raw)
  } catch {
    return undefined
  }
  if (!v || typeof v !== 'object') return undefined
  const o = v as { text?: unknown; mentions?: unknown; replyTo?: unknown }
  if (typeof o.text !== 'string') return undefined
  const mentions: DraftMention[] = []
  if (Array.isArray(o.mentions))
    for (const m of o.mentions as unknown[]) {
      const { label, pubkey } = (m ?? {}) as { label?: unknown; pubkey?: unknown }
      if (
        typeof label === 'string' &&
        label.length <= 200 &&
        typeof pubkey === 'string' &&
        HEX64.test(pubkey)
      )
        mentions.push({ label, pubkey })
    }
  const draft: Draft = { text: o.text, mentions }
  if (typeof o.replyTo === 'string' && HEX64.test(o.replyTo)) draft.replyTo = o.replyTo
  return isEmptyDraft(draft) ? undefined : draft
}

/** Mentions of `a` then those of `b` not already named by label. */
function mergeMentions(a: readonly DraftMention[], b: readonly DraftMention[]): DraftMention[] {
  const out = [...a]
  for (const m of b) if (!out.some((x) => x.label === m.label)) out.push(m)
  return out
}

export interface DraftBookOptions {
  /** The signed-in account: drafts are kept per account. */
  account: string
  /** Where drafts outlive the page; none keeps them in memory only. */
  storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem' | 'key' | 'length'>
  /** Quiet time after the last keystroke before a write, ms (400). */
  delayMs?: number
  /** Longest a changed draft waits for its write while typing goes on, ms (2,000). */
  maxWaitMs?: number
  /** Timer (setTimeout by default); returns the cancel function. */
  schedule?: (fn: () => void, ms: number) => () => void
  /** Clock for `maxWaitMs`, ms. */
  now?: () => number
}

/**
 * The drafts of one account on this device.
 *
 * @example
 * const drafts = new DraftBook({ account: pubkey, storage: localStorage })
 * drafts.set(groupKey, { text: 'half a thought', mentions: [] }) // kept; written within 2 s
 * drafts.get(groupKey).text // 'half a thought', also after a reload
 */
export class DraftBook implements Drafts {
  private readonly memory = new Map<string, Draft>()
  private readonly dirty = new Set<string>()
  private readonly listeners = new Set<() => void>()
  private cancel: (() => void) | undefined
  private firstDirtyAt = 0
  private readonly prefix: string
  private readonly delayMs: number
  private readonly maxWaitMs: number
  private readonly schedule: (fn: () => void, ms: number) => () => void
  private readonly now: () => number

  constructor(private readonly opts: DraftBookOptions) {
    this.prefix = `roost.draft.${opts.account}.`
    this.delayMs = opts.delayMs ?? 400
    this.maxWaitMs = opts.maxWaitMs ?? 2_000
    this.schedule =
      opts.schedule ??
      ((fn, ms) => {
        const t = setTimeout(fn, ms)
        return () => clearTimeout(t)
      })
    this.now = opts.now ?? Date.now
  }

  /** The box's draft: the same object until it changes (for `useSyncExternalStore`). */
  get = (box: string): Draft => {
    let d = this.memory.get(box)
    if (!d) {
      d = this.read(box) ?? EMPTY_DRAFT
      this.memory.set(box, d)
    }
    return d
  }

  /** Replaces the box's draft; an empty one is removed from storage at once. */
  set = (box: string, draft: Draft): void => {
    const next = isEmptyDraft(draft) && draft.error === undefined ? EMPTY_DRAFT : draft
    if (this.memory.get(box) === next) return
    this.memory.set(box, next)
    if (isEmptyDraft(next)) {
      this.dirty.delete(box)
      this.write(box)
    } else {
      if (this.dirty.size === 0) this.firstDirtyAt = this.now()
      this.dirty.add(box)
      this.arm()
    }
    this.changed()
  }

  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  /**
   * Puts the text of messages that were not sent back into their box, in the order they were
   * typed and before whatever was typed since, with the reason; written to storage at once.
   */
  restore(box: string, unsent: readonly Draft[], error: string): void {
    if (unsent.length === 0) return
    const current = this.get(box)
    const text = [...unsent.map((d) => d.text), current.text].filter((t) => t !== '').join('\n')
    let mentions: DraftMention[] = [...current.mentions]
    for (const d of unsent) mentions = mergeMentions(mentions, d.mentions)
    const replyTo = current.replyTo ?? unsent.find((d) => d.replyTo !== undefined)?.replyTo
    const media = [...unsent.flatMap((d) => d.media ?? []), ...(current.media ?? [])]
    this.set(box, {
      text,
      mentions,
      ...(replyTo !== undefined ? { replyTo } : {}),
      ...(media.length > 0 ? { media } : {}),
      error,
    })
    this.flush()
  }

  /** Writes every changed draft now (the page is being hidden or closed). */
  flush(): void {
    this.cancel?.()
    this.cancel = undefined
    for (const box of this.dirty) this.write(box)
    this.dirty.clear()
  }

  /** Forgets every draft of the account, here and in storage (signing out). */
  clearAll(): void {
    this.cancel?.()
    this.cancel = undefined
    this.dirty.clear()
    this.memory.clear()
    const storage = this.opts.storage
    if (storage) {
      const keys: string[] = []
      try {
        for (let i = 0; i < storage.length; i++) {
          const k = storage.key(i)
          if (k?.startsWith(this.prefix)) keys.push(k)
        }
        for (const k of keys) storage.removeItem(k)
      } catch {
        // Storage refused: nothing more to do.
      }
    }
    this.changed()
  }

  private arm(): void {
    this.cancel?.()
    const wait = Math.max(0, Math.min(this.delayMs, this.firstDirtyAt + this.maxWaitMs - this.now()))
    this.cancel = this.schedule(() => {
      this.cancel = undefined
      this.flush()
    }, wait)
  }

  private read(box: string): Draft | undefined {
    try {
      return parseStoredDraft(this.opts.storage?.getItem(this.prefix + box) ?? null)
    } catch {
      return undefined
    }
  }

  private write(box: string): void {
    const storage = this.opts.storage
    if (!storage) return
    const d = this.memory.get(box) ?? EMPTY_DRAFT
    try {
      if (isEmptyDraft(d)) storage.removeItem(this.prefix + box)
      else {
        const kept: Draft = { text: d.text, mentions: d.mentions }
        if (d.replyTo !== undefined) kept.replyTo = d.replyTo
        storage.setItem(this.prefix + box, JSON.stringify(kept))
      }
    } catch {
      // Storage full or refused: the draft lasts while the page is open.
    }
  }

  private changed(): void {
    for (const l of this.listeners) l()
  }
}
