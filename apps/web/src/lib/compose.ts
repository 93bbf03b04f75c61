/**
 * What the composer does to a draft before it is sent: people picked from the `@` list become
 * NIP-27 `nostr:npub…` URIs (the client adds a `p` tag for each), and `:shortcode:`s become
 * their emoji. Pure functions; the shortcode table is loaded on demand (`loadShortcodes`).
 */
import { mentionUri } from '@roost/nip29'
import dataSource from 'emoji-picker-element-data/en/github/data.json?url'

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

/** One emoji of emoji-picker-element-data: the emoji and its shortcodes. */
export interface EmojiRow {
  emoji: string
  shortcodes?: string[]
}

/** The shortcode table of emoji rows (the first emoji to claim a code keeps it). */
export function shortcodeTable(rows: readonly EmojiRow[]): Shortcodes {
  const map = new Map<string, string>()
  for (const row of rows)
    for (const code of row.shortcodes ?? [])
      if (typeof code === 'string' && !map.has(code)) map.set(code, row.emoji)
  return map
}

/** The emoji data file of this build: the picker's `dataSource`, and the shortcodes' source. */
export const EMOJI_DATA_URL: string = dataSource

async function fetchRows(): Promise<EmojiRow[]> {
  const res = await fetch(EMOJI_DATA_URL)
  if (!res.ok) throw new Error(`emoji data: HTTP ${res.status}`)
  return (await res.json()) as EmojiRow[]
}

let table: Promise<Shortcodes> | undefined

/**
 * The GitHub-style shortcode table from emoji-picker-element-data (the same file the picker
 * reads, fetched from this origin once, on the first draft that may hold a shortcode).
 */
export function loadShortcodes(): Promise<Shortcodes> {
  table ??= fetchRows()
    .then(shortcodeTable)
    .catch((err: unknown) => {
      table = undefined
      throw err
    })
  return table
}

/** The draft as it is sent: mentions encoded, shortcodes replaced (when any may be present). */
export async function prepareDraft(
  text: string,
  picked: readonly PickedMention[],
  load: () => Promise<Shortcodes> = loadShortcodes,
): Promise<string> {
  let out = text
  if (hasShortcode(out)) {
    // Without the table (offline, say) the text goes as typed.
    const codes = await load().catch(() => undefined)
    if (codes) out = replaceShortcodes(out, codes)
  }
  return encodeMentions(out, picked)
}
