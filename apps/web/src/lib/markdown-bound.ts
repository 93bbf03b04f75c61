/**
 * Holds one message's formatting to a fixed amount of work before any parser sees it.
 *
 * micromark spends on each token (a delimiter, bracket, escape, line) some microseconds of events
 * and resolvers, and pairing emphasis or link labels walks back over a paragraph's tokens (its
 * time per paragraph grows with delimiters × tokens), and its tree is as deep as the nesting
 * typed. So one linear pass splits the message into blocks, and only a bounded prefix of it is
 * parsed at all:
 *
 * - top-level fenced code blocks are taken out whole and never parsed (their text is the value);
 *   the Markdown between them is parsed in one go;
 * - a line's block-quote markers past `quoteDepth` are escaped, so they show as typed instead of
 *   opening another level;
 * - every character that can start markup, every line end, every URL and nostr entity is a token
 *   (a new paragraph and a fence count as a few); a message formats at most `tokens` of them and
 *   `chars` characters, and a paragraph at most `delimiters` of `*_~[]` and backticks. Past any
 *   of these the rest of the message is plain text, cut at a space where the line has one.
 *
 * So parsing costs at most about tokens × (1 + delimiters) steps plus the characters, whatever
 * the input; the benchmark `bench/markdown.bench.ts` measures the worst inputs found.
 */
import {
  fenceCloses,
  fenceContent,
  fenceOpen,
  infoParts,
  isBlank,
  isSpace,
  type Line,
  lines,
  quoteMarkers,
} from './markdown-lines'

const NO_QUOTE = { depth: 0, excess: -1 }

/** The bounds every message's formatting is held to. */
export const MARKDOWN_BOUNDS = {
  /** Block quotes nested deeper than this show their further `>` as text. */
  quoteDepth: 8,
  /** Elements nested deeper than this show their source as text (counted from the message). */
  depth: 16,
  /** Tokens (see the file's summary) one message may spend on formatting. */
  tokens: 8000,
  /** Pairing delimiters (`*`, `_`, `~`, `[`, `]`, backtick) one paragraph may hold. */
  delimiters: 64,
  /** Characters of a message that are formatted. */
  chars: 16_384,
  /** The plain rest of a message shows URLs and mentions as links while it has at most this many. */
  restLinks: 100,
} as const

export type MarkdownBounds = { -readonly [K in keyof typeof MARKDOWN_BOUNDS]: number }

/** A piece of a message: Markdown to parse, a fenced code block, or the unformatted rest. */
export type Block =
  | { type: 'markdown'; source: string }
  | { type: 'code'; lang: string | null; meta: string | null; value: string }
  /** `inline`: cut inside a paragraph, which it continues. */
  | { type: 'plain'; text: string; links: boolean; inline: boolean }

/**
 * What each thing costs the parser, in tokens of about a microsecond (micromark's time per
 * construct, measured in Node: a line of a paragraph takes as long as eight `<`).
 */
const COST = {
  fence: 16,
  paragraph: 16,
  line: 10,
  /** Each block-quote marker at a line's start: every line re-enters each open quote. */
  quote: 10,
  /** `[`, `]` and `<` (a link or autolink may start or end). */
  bracket: 7,
  delimiter: 4,
  escape: 3,
  other: 1,
  /** A URL or nostr entity: a link or a name to render (and a URL to parse, or a key to decode). */
  link: 12,
}

/** Tokens per ASCII character (0: plain text), and which characters pair up as delimiters. */
const WEIGHT = new Uint8Array(128)
const PAIRS = new Uint8Array(128)
const weigh = (chars: string, cost: number, pairs = false) => {
  for (const c of chars) {
    WEIGHT[c.charCodeAt(0)] = cost
    if (pairs) PAIRS[c.charCodeAt(0)] = 1
  }
}
weigh('\n\r', COST.line)
weigh('[]', COST.bracket, true)
weigh('<', COST.bracket)
weigh('*_~`', COST.delimiter, true)
weigh('\\', COST.escape)
weigh('>!&', COST.other)

/** A URL (`://`) or a nostr entity (`npub1`, `nprofile1`, `note1`, `nevent1`, `naddr1`) at `i`? */
function linkAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i)
  if (c === 58 /* : */) return text.charCodeAt(i + 1) === 47 && text.charCodeAt(i + 2) === 47
  if (c !== 49 /* 1 */ || i < 4) return false
  const p = text.charCodeAt(i - 1) | 32
  if (p !== 98 /* b */ && p !== 101 /* e */ && p !== 116 /* t */ && p !== 114 /* r */) return false
  return /n(?:pub|profile|ote|event|addr)$/i.test(text.slice(Math.max(0, i - 8), i))
}

/** Where something may cost: a character with a weight, or one a link may hinge on. */
const COSTLY = /[*_~[\]`\\<>!&\n\r:1]/g

/** URLs and nostr entities in `text`. */
function linksIn(text: string): number {
  let n = 0
  for (const m of text.matchAll(/:\/\/|1/g)) if (linkAt(text, m.index)) n++
  return n
}

/** What is left to spend. */
class Budget {
  tokens: number
  chars: number
  delimiters = 0
  constructor(private bounds: MarkdownBounds) {
    this.tokens = bounds.tokens
    this.chars = bounds.chars
  }
  /** A new paragraph may start: its delimiters are counted afresh. */
  paragraph(): void {
    this.delimiters = this.bounds.delimiters
  }
  /** Spends `n` tokens if there are that many left. */
  spend(n: number): boolean {
    if (n > this.tokens) return false
    this.tokens -= n
    return true
  }
  /** How far `text[from, to)` fits (the index of the first character that does not). */
  fit(text: string, from: number, to: number): number {
    // Plain characters cost only their count: skip from one costly character to the next.
    let i = from
    COSTLY.lastIndex = from
    while (i < to) {
      const next = COSTLY.exec(text)
      const at = next === null || next.index >= to ? to : next.index
      if (at - i > this.chars) return i + this.chars
      this.chars -= at - i
      i = at
      if (i === to) break
      const c = text.charCodeAt(i)
      const pair = PAIRS[c] === 1
      const cost = (WEIGHT[c] as number) + (linkAt(text, i) ? COST.link : 0)
      if (cost > this.tokens || this.chars < 1 || (pair && this.delimiters < 1)) return i
      this.tokens -= cost
      this.chars--
      if (pair) this.delimiters--
      i++
      COSTLY.lastIndex = i
    }
    return i
  }
}

function rewrite(text: string, from: number, to: number, at: number): string {
  return at < 0 || at >= to ? text.slice(from, to) : `${text.slice(from, at)}\\${text.slice(at, to)}`
}

/**
 * The blocks of a message, within `bounds`: parse the `markdown` ones, show `code` ones as they
 * are, and `plain` as text (with links only when `links` is true). Linear in the text.
 *
 * @example
 * splitBlocks('**hi**\n\n```js\nx\n```')
 * // [{ type: 'markdown', source: '**hi**\n\n' }, { type: 'code', lang: 'js', meta: null, value: 'x' }]
 */
export function splitBlocks(text: string, bounds: MarkdownBounds = MARKDOWN_BOUNDS): Block[] {
  const out: Block[] = []
  const all = lines(text)
  const budget = new Budget(bounds)
  let pending: string[] = []
  let inParagraph = false
  const flush = () => {
    if (pending.length > 0) out.push({ type: 'markdown', source: pending.join('') })
    pending = []
    inParagraph = false
  }
  const rest = (from: number, inline = false) => {
    flush()
    const plain = text.slice(from)
    if (plain !== '')
      out.push({ type: 'plain', text: plain, links: linksIn(plain) <= bounds.restLinks, inline })
    return out
  }
  for (let n = 0; n < all.length; n++) {
    const line = all[n] as Line
    const blank = isBlank(text, line)
    const fence = blank ? undefined : fenceOpen(text, line)
    if (fence) {
      if (!budget.spend(COST.fence)) return rest(line.start)
      flush()
      const body: string[] = []
      let m = n + 1
      for (; m < all.length; m++) {
        const inner = all[m] as Line
        if (fenceCloses(text, inner, fence)) break
        body.push(fenceContent(text, inner, fence.column))
      }
      out.push({ type: 'code', ...infoParts(fence.info), value: body.join('').replace(/(\r?\n|\r)$/, '') })
      n = m
      continue
    }
    const continues = inParagraph
    // Nothing more fits: the rest of the message, from this line, is plain. A paragraph this line
    // would continue gets it from the previous line's end, so the line break stays.
    const stop = () => {
      const prev = all[n - 1]
      if (!continues || prev === undefined) return rest(line.start)
      const last = pending.length - 1
      pending[last] = (pending[last] as string).slice(0, prev.end - prev.next)
      return rest(prev.end, true)
    }
    if (!blank && !inParagraph) {
      // A blank line, a fence or the start ended the last paragraph: this line starts one.
      if (!budget.spend(COST.paragraph)) return stop()
      budget.paragraph()
    }
    inParagraph = !blank
    const { depth, excess: quote } = blank ? NO_QUOTE : quoteMarkers(text, line, bounds.quoteDepth)
    if (!budget.spend(depth * COST.quote + (quote >= 0 ? COST.escape : 0))) return stop()
    const fits = budget.fit(text, line.start, line.next)
    if (fits === line.next) {
      pending.push(rewrite(text, line.start, line.next, quote))
      continue
    }
    if (blank) return rest(line.next)
    if (fits >= line.end) {
      // Only the line ending is over: the rest continues the paragraph from it.
      pending.push(rewrite(text, line.start, line.end, quote))
      return rest(line.end, true)
    }
    // Over a bound inside this line: keep what fits, up to its last space.
    let cut = fits
    while (cut > line.start && !isSpace(text.charCodeAt(cut - 1))) cut--
    if (cut === line.start) cut = fits
    const c = text.charCodeAt(cut - 1)
    if (cut > line.start && c >= 0xd800 && c <= 0xdbff) cut-- // never between a surrogate pair
    if (cut === line.start) return stop()
    pending.push(rewrite(text, line.start, cut, quote))
    return rest(cut, true)
  }
  flush()
  return out
}
