/**
 * Hostile message contents for the Markdown renderer, each at the relay's content limit (65,536
 * characters, `LIMITS.maxContentLength`): nesting bombs of each construct, delimiter runs, long
 * links, deep lists and mixtures. Used by the unit tests, the e2e test and the benchmark.
 */
import { LIMITS } from '@roost/relay'
import { nip19 } from 'nostr-tools'

/** The longest content the relay accepts. */
export const LIMIT: number = LIMITS.maxContentLength

/** `unit` repeated up to exactly `length` characters. */
export function fill(unit: string, length = LIMIT): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length)
}

/** `open` n times, then `middle`, then `close` n times, with n as large as fits. */
function nest(open: string, middle: string, close: string): string {
  const n = Math.floor((LIMIT - middle.length) / (open.length + close.length))
  return open.repeat(n) + middle + close.repeat(n)
}

/** A deterministic pubkey per index (not a real person: what matters is that each differs). */
function npub(i: number): string {
  return nip19.npubEncode(i.toString(16).padStart(64, '0'))
}

export interface HostileInput {
  name: string
  text: string
  /** The attack class. */
  kind: 'nesting' | 'delimiters' | 'links' | 'lists' | 'mixed'
}

/** Every hostile input, by name. */
export const CORPUS: HostileInput[] = [
  // Nesting bombs, one per construct.
  { name: 'quote-bomb', kind: 'nesting', text: fill('> ') },
  { name: 'quote-bomb-tight', kind: 'nesting', text: fill('>') },
  { name: 'quote-bomb-lazy', kind: 'nesting', text: `${'>'.repeat(LIMIT / 2)}${fill('\na', LIMIT / 2)}` },
  {
    name: 'quote-lines-deepening',
    kind: 'nesting',
    text: fill(Array.from({ length: 60 }, (_, i) => `${'>'.repeat(i)} q\n`).join('')),
  },
  { name: 'emphasis-bomb', kind: 'nesting', text: nest('*a ', 'b', '*') },
  { name: 'strong-bomb', kind: 'nesting', text: nest('**a ', 'b', '**') },
  { name: 'underscore-bomb', kind: 'nesting', text: nest('_a ', 'b', '_') },
  { name: 'strike-bomb', kind: 'nesting', text: nest('~~a ', 'b', '~~') },
  { name: 'link-label-bomb', kind: 'nesting', text: nest('[', 'a', '](https://x.y)') },
  { name: 'mixed-emphasis-bomb', kind: 'nesting', text: nest('*_~~**a ', 'b', '**~~_*') },
  { name: 'quoted-emphasis-bomb', kind: 'nesting', text: nest('> *a ', 'b', '*') },
  // Delimiter runs.
  { name: 'underscore-star-run', kind: 'delimiters', text: fill('_*') },
  { name: 'star-run', kind: 'delimiters', text: fill('*') },
  { name: 'star-letter-run', kind: 'delimiters', text: fill('*a') },
  { name: 'tilde-run', kind: 'delimiters', text: fill('~~a') },
  {
    name: 'backtick-runs',
    kind: 'delimiters',
    text: fill(Array.from({ length: 40 }, (_, i) => `${'`'.repeat(i + 1)}a`).join('')),
  },
  { name: 'backtick-pairs', kind: 'delimiters', text: fill('`a``') },
  { name: 'escape-run', kind: 'delimiters', text: fill('\\*') },
  { name: 'bracket-run', kind: 'delimiters', text: fill('[a') },
  { name: 'close-bracket-run', kind: 'delimiters', text: fill('a]') },
  { name: 'bracket-paren-lines', kind: 'delimiters', text: fill(']([\n') },
  { name: 'angle-run', kind: 'delimiters', text: fill('<a') },
  // Links.
  { name: 'long-link', kind: 'links', text: `[a](https://example.com/${fill('a', LIMIT - 26)})` },
  { name: 'long-url', kind: 'links', text: `https://example.com/${fill('a', LIMIT - 20)}` },
  { name: 'url-trailing-dots', kind: 'links', text: `https://a${fill('.', LIMIT - 10)}x` },
  { name: 'many-urls', kind: 'links', text: fill('https://a.b ') },
  { name: 'many-links', kind: 'links', text: fill('[a](https://a.b) ') },
  { name: 'unclosed-destinations', kind: 'links', text: fill('[a](<') },
  { name: 'unclosed-titles', kind: 'links', text: fill('[a](b "') },
  { name: 'autolinks', kind: 'links', text: fill('<https://a.b> ') },
  {
    name: 'many-mentions',
    kind: 'links',
    text: fill(Array.from({ length: 1000 }, (_, i) => `nostr:${npub(i + 1)} `).join('')),
  },
  // Lists (switched off, so text; still parsed by the tokenizer's block pass).
  { name: 'list-bomb', kind: 'lists', text: fill('- ') },
  { name: 'ordered-list-bomb', kind: 'lists', text: fill('1. ') },
  {
    name: 'indented-list',
    kind: 'lists',
    text: fill(Array.from({ length: 120 }, (_, i) => `${'  '.repeat(i)}- a\n`).join('')),
  },
  // Mixtures and the plain shapes that cost a parser most per character.
  { name: 'many-lines', kind: 'mixed', text: fill('a\n') },
  { name: 'many-paragraphs', kind: 'mixed', text: fill('*a* b\n\n') },
  { name: 'many-fences', kind: 'mixed', text: fill('```\n*a*\n```\n') },
  { name: 'formatted-lines', kind: 'mixed', text: fill('> **a _b ~~c [d](https://e.f) `g`~~_** \\* <h>\n') },
  { name: 'crlf-lines', kind: 'mixed', text: fill('*a*\r\n') },
]

/** A plain message of the same size: the baseline a hostile input is compared with. */
export const PLAIN = fill('Plain words in a long message, nothing to format at all. ')
