/**
 * The line-level structure `markdown-bound.ts` needs from a message: lines, blank lines,
 * top-level fenced code blocks and block-quote markers, read as micromark reads them with the
 * subset's constructs (indented code is off, so any indent is allowed before a fence or `>`).
 */

export interface Line {
  start: number
  /** End of the content, before the line ending. */
  end: number
  /** Start of the next line (after `\n`, `\r\n` or `\r`). */
  next: number
}

/**
 * The lines of `text`, as CommonMark splits them.
 *
 * @example lines('a\r\nb') // [{ start: 0, end: 1, next: 3 }, { start: 3, end: 4, next: 4 }]
 */
export function lines(text: string): Line[] {
  const out: Line[] = []
  let start = 0
  for (const m of text.matchAll(/\r\n|\r|\n/g)) {
    out.push({ start, end: m.index, next: m.index + m[0].length })
    start = m.index + m[0].length
  }
  if (start < text.length) out.push({ start, end: text.length, next: text.length })
  return out
}

export function isSpace(c: number): boolean {
  return c === 32 || c === 9
}

/** Only spaces and tabs: a blank line ends a paragraph and a block quote. */
export function isBlank(text: string, line: Line): boolean {
  BLANK.lastIndex = line.start
  return BLANK.test(text) && BLANK.lastIndex >= line.end
}

const BLANK = /[ \t]*/y

/** Where a line's first non-blank character is, and its column (tabs to multiples of 4). */
function indentOf(text: string, line: Line): { at: number; column: number } {
  let at = line.start
  let column = 0
  while (at < line.end && isSpace(text.charCodeAt(at))) {
    column = text.charCodeAt(at) === 9 ? column + 4 - (column % 4) : column + 1
    at++
  }
  return { at, column }
}

export interface Fence {
  marker: string
  size: number
  column: number
  info: string
}

/**
 * The fence a line opens: any indent, three or more backticks or tildes, and after backticks no
 * other backtick on the line.
 *
 * @example fenceOpen('```js', { start: 0, end: 5, next: 5 }) // { marker: '`', size: 3, column: 0, info: 'js' }
 */
export function fenceOpen(text: string, line: Line): Fence | undefined {
  const { at, column } = indentOf(text, line)
  const marker = text[at]
  if (marker !== '`' && marker !== '~') return undefined
  let i = at
  while (i < line.end && text[i] === marker) i++
  if (i - at < 3) return undefined
  const info = text.slice(i, line.end)
  if (marker === '`' && info.includes('`')) return undefined
  return { marker, size: i - at, column, info }
}

/** Whether a line closes `fence`: any indent, at least as many of its marker, then only blanks. */
export function fenceCloses(text: string, line: Line, fence: Fence): boolean {
  let i = indentOf(text, line).at
  const from = i
  while (i < line.end && text[i] === fence.marker) i++
  if (i - from < fence.size) return false
  while (i < line.end && isSpace(text.charCodeAt(i))) i++
  return i === line.end
}

/** A content line of a fence with its line ending, without up to the opening fence's indent. */
export function fenceContent(text: string, line: Line, column: number): string {
  let at = line.start
  let col = 0
  while (at < line.end && col < column && isSpace(text.charCodeAt(at))) {
    const width = text.charCodeAt(at) === 9 ? 4 - (col % 4) : 1
    if (col + width > column) {
      // A tab only partly inside the indent: its columns past the indent stay, as spaces.
      return ' '.repeat(col + width - column) + text.slice(at + 1, line.next)
    }
    col += width
    at++
  }
  return text.slice(at, line.next)
}

const ESCAPE = /\\([!-/:-@[-`{-~])/g

/**
 * `lang` and `meta` of a fence's info string, as mdast-util-from-markdown gives them.
 *
 * @example infoParts(' js  title="a"') // { lang: 'js', meta: 'title="a"' }
 */
export function infoParts(info: string): { lang: string | null; meta: string | null } {
  const trimmed = info.replace(/^[ \t]+/, '')
  if (trimmed === '') return { lang: null, meta: null }
  const space = trimmed.search(/[ \t]/)
  const lang = (space < 0 ? trimmed : trimmed.slice(0, space)).replace(ESCAPE, '$1')
  const rest = space < 0 ? '' : trimmed.slice(space).replace(/^[ \t]+/, '')
  return { lang, meta: rest === '' ? null : rest.replace(ESCAPE, '$1') }
}

/**
 * How many block-quote markers (up to `max`) a line starts with, and where the next one is when
 * it has more (`excess`, else -1): a backslash goes there, so it shows as typed.
 *
 * @example quoteMarkers('> > > a', { start: 0, end: 7, next: 7 }, 2) // { depth: 2, excess: 4 }
 */
export function quoteMarkers(text: string, line: Line, max: number): { depth: number; excess: number } {
  let i = line.start
  let depth = 0
  for (;;) {
    while (i < line.end && isSpace(text.charCodeAt(i))) i++
    if (text[i] !== '>') return { depth, excess: -1 }
    if (depth === max) return { depth, excess: i }
    depth++
    i++
  }
}
