/**
 * What the composer does to a draft before it is sent: people picked from the `@` list become
 * NIP-27 `nostr:npub…` URIs (the client adds a `p` tag for each), and `:shortcode:`s become
 * their emoji. Pure functions; the shortcode table is loaded on demand (`loadShortcodes`).
 */
import { mentionUri } from '@roost/nip29'

/** A person picked in the `@` list: the text inserted in the draft and who it names. */
export interface PickedMention {
  /** What the draft shows, e.g. `@Ada`. */
  label: string
  pubkey: string
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * Replaces each picked label still present in `text` with the person's `nostr:npub…` URI. A
 * label counts only as a whole word (not inside a longer name or an email address); longer
 * labels win over their prefixes (`@Ada Lovelace` before `@Ada`).
 *
 * @example encodeMentions('hi @Ada!', [{ label: '@Ada', pubkey }]) // 'hi nostr:npub1…!'
 */
export function encodeMentions(text: string, picked: readonly PickedMention[]): string {
  const byLabel = new Map<string, string>()
  for (const p of picked) if (p.label.length > 1 && !byLabel.has(p.label)) byLabel.set(p.label, p.pubkey)
  if (byLabel.size === 0) return text
  const labels = [...byLabel.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp)
  const re = new RegExp(`(?<![\\p{L}\\p{N}_.@])(?:${labels.join('|')})(?![\\p{L}\\p{N}_])`, 'gu')
  return text.replace(re, (label) => mentionUri(byLabel.get(label) as string))
}

/**
 * The `@query` being typed just before the caret, if any: `@` at the start or after a space,
 * followed by up to 32 non-space characters.
 *
 * @example mentionQuery('hi @ad', 6) // { start: 3, query: 'ad' }
 */
export function mentionQuery(text: string, caret: number): { start: number; query: string } | undefined {
  const before = text.slice(Math.max(0, caret - 34), caret)
  const m = /(?:^|\s)@([^\s@]{0,32})$/u.exec(before)
  if (!m) return undefined
  const query = m[1] ?? ''
  return { start: caret - query.length - 1, query }
}

/** A shortcode table: `+1` → `👍️`. */
export type Shortcodes = ReadonlyMap<string, string>

const SHORTCODE = /(?<![\p{L}\p{N}_:]):([a-z0-9_+-]{1,40}):(?![\p{L}\p{N}_:])/gu

/**
 * Replaces known `:shortcode:`s with their emoji; unknown ones and text inside backticks stay.
 * @example replaceShortcodes('nice :+1:', table) // 'nice 👍️'
 */
export function replaceShortcodes(text: string, table: Shortcodes): string {
  if (!text.includes(':')) return text
  return text
    .split(/(`+[^`]*`+)/)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part.replace(SHORTCODE, (raw, code: string) => table.get(code.toLowerCase()) ?? raw),
    )
    .join('')
}

/** Whether `text` may hold a shortcode (so the table is worth loading). */
export function hasShortcode(text: string): boolean {
  SHORTCODE.lastIndex = 0
  return SHORTCODE.test(text)
}

let table: Promise<Shortcodes> | undefined

/**
 * The GitHub-style shortcode table from emoji-picker-element-data (the picker's own data), loaded
 * once as its own chunk.
 */
export function loadShortcodes(): Promise<Shortcodes> {
  table ??= import('emoji-picker-element-data/en/github/data.json')
    .then((mod) => {
      const rows = (mod.default ?? mod) as unknown as { emoji: string; shortcodes?: string[] }[]
      const map = new Map<string, string>()
      for (const row of rows)
        for (const code of row.shortcodes ?? []) if (!map.has(code)) map.set(code, row.emoji)
      return map as Shortcodes
    })
    .catch((err: unknown) => {
      table = undefined
      throw err
    })
  return table
}

/** The draft as it is sent: mentions encoded, shortcodes replaced (when any may be present). */
export async function prepareDraft(text: string, picked: readonly PickedMention[]): Promise<string> {
  let out = text
  if (hasShortcode(out)) {
    const codes = await loadShortcodes().catch(() => undefined)
    if (codes) out = replaceShortcodes(out, codes)
  }
  return encodeMentions(out, picked)
}
