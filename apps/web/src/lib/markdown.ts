/**
 * The Markdown subset messages are written in: bold, italic, strikethrough, inline code, fenced
 * code blocks, block quotes and links. Parsed by mdast-util-from-markdown (micromark, CommonMark
 * to the letter) with GFM strikethrough into an mdast tree that `Markdown.tsx` renders as React
 * elements; raw HTML, headings, lists, images, indented code, thematic breaks and character
 * references are switched off at the tokenizer, so such text stays exactly as typed.
 *
 * Whatever a peer sends, the work is bounded (`markdown-bound.ts`): the message is parsed in
 * pieces within a token budget, quotes and other elements nest only so deep, and past a bound
 * the rest is plain text.
 */
import type { Nodes, Root, RootContent, Text } from 'mdast'
import { fromMarkdown } from 'mdast-util-from-markdown'
import { gfmStrikethroughFromMarkdown } from 'mdast-util-gfm-strikethrough'
import { gfmStrikethrough } from 'micromark-extension-gfm-strikethrough'
import { type Block, MARKDOWN_BOUNDS, type MarkdownBounds, splitBlocks } from './markdown-bound'

export { MARKDOWN_BOUNDS, type MarkdownBounds } from './markdown-bound'

declare module 'mdast' {
  interface TextData {
    /** Shown exactly as it is: no links or mentions (the plain rest of a message with too many). */
    literal?: boolean
  }
}

/** micromark constructs chat text does not use: they stay literal text. */
const DISABLED = [
  'headingAtx',
  'setextUnderline',
  'list',
  'thematicBreak',
  'htmlFlow',
  'htmlText',
  'codeIndented',
  'labelStartImage',
  'definition',
  'characterReference',
]

/**
 * The micromark configuration of the subset, as `fromMarkdown`'s options. Exported so tests can
 * compare the bounded parse with micromark's own; use {@link parseMarkdown} to parse.
 */
export const MARKDOWN_OPTIONS = {
  extensions: [{ disable: { null: DISABLED } }, gfmStrikethrough({ singleTilde: false })],
  mdastExtensions: [gfmStrikethroughFromMarkdown()],
}

/** Longer content (more than the relay's content limit) is shown as plain text, unparsed. */
export const MAX_MARKDOWN = 64 * 1024

/**
 * A longer message shows its first `chars` characters or `lines` lines until the reader asks for
 * the whole, formatted within `tokens` (the rest of the preview plain): a timeline of long
 * messages laid out in full would block the page.
 */
export const PREVIEW = { chars: 4000, lines: 150, tokens: 300 }

/** The bounds a preview is formatted within. */
export const PREVIEW_BOUNDS: MarkdownBounds = { ...MARKDOWN_BOUNDS, tokens: PREVIEW.tokens }

/**
 * The start of a long message to show at first (cut at a space where one is near), or
 * `undefined` when the message is short enough to show whole.
 *
 * @example previewOf('short') // undefined
 * @example previewOf('word '.repeat(1000))?.length // 3999
 */
export function previewOf(
  text: string,
  preview: { chars: number; lines: number } = PREVIEW,
): string | undefined {
  let end = Math.min(text.length, preview.chars)
  let lines = 1
  let atLineEnd = false
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i)
    if ((c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) && ++lines > preview.lines) {
      end = i
      atLineEnd = true
    }
  }
  if (end >= text.length) return undefined
  let cut = end
  if (!atLineEnd) {
    while (cut > 0 && end - cut < 100 && !/\s/.test(text[cut - 1] as string)) cut--
    if (cut === 0 || end - cut >= 100) cut = end
  }
  const c = text.charCodeAt(cut - 1)
  if (c >= 0xd800 && c <= 0xdbff) cut-- // never between a surrogate pair
  return text.slice(0, cut).trimEnd()
}

function plainText(text: string, links: boolean): Text {
  const node: Text = { type: 'text', value: text }
  if (!links) node.data = { literal: true }
  return node
}

/**
 * Adds the plain rest of a message: inside the paragraph it was cut from (the deepest last one,
 * in its quotes), or as a paragraph of its own.
 */
function addRest(children: RootContent[], rest: Extract<Block, { type: 'plain' }>): void {
  let last = children.at(-1)
  while (rest.inline && last?.type === 'blockquote') last = last.children.at(-1)
  if (rest.inline && last?.type === 'paragraph') last.children.push(plainText(rest.text, rest.links))
  else
    children.push({
      type: 'paragraph',
      children: [plainText(rest.text.replace(/^(\r\n|\r|\n)/, ''), rest.links)],
    })
}

/**
 * Replaces every element at `depth` or deeper (the message's blocks are at depth 1) by a text
 * node with its source as typed, so no node is deeper than `depth`. Iterative: no recursion
 * however deep the tree.
 */
function boundDepth(root: Root, source: string, depth: number): void {
  const stack: { node: Nodes; depth: number }[] = [{ node: root, depth: 0 }]
  while (stack.length > 0) {
    const { node, depth: d } = stack.pop() as { node: Nodes; depth: number }
    if (!('children' in node)) continue
    const kids = node.children as Nodes[]
    for (let i = 0; i < kids.length; i++) {
      const kid = kids[i] as Nodes
      if (d + 1 >= depth && 'children' in kid) {
        const start = kid.position?.start.offset ?? 0
        const end = kid.position?.end.offset ?? start
        kids[i] = { type: 'text', value: source.slice(start, end), position: kid.position }
      } else stack.push({ node: kid, depth: d + 1 })
    }
  }
}

function parseBlock(block: Exclude<Block, { type: 'plain' }>, bounds: MarkdownBounds): RootContent[] {
  if (block.type === 'code') return [{ type: 'code', lang: block.lang, meta: block.meta, value: block.value }]
  const tree = fromMarkdown(block.source, MARKDOWN_OPTIONS)
  boundDepth(tree, block.source, bounds.depth)
  return tree.children
}

/**
 * The mdast tree of a message's content, within {@link MARKDOWN_BOUNDS}: the time to parse and
 * render it grows linearly with the text, at most `tokens` tokens are formatted, and no element
 * is nested deeper than `depth`. Content over {@link MAX_MARKDOWN} is one plain paragraph.
 * Never throws.
 *
 * @example parseMarkdown('**hi** ~~there~~') // root > paragraph > [strong, text, delete]
 * @example parseMarkdown('> '.repeat(12_500)) // 8 quotes deep, the other `>` as text
 */
export function parseMarkdown(text: string, bounds: MarkdownBounds = MARKDOWN_BOUNDS): Root {
  if (text.length > MAX_MARKDOWN) {
    return { type: 'root', children: [{ type: 'paragraph', children: [plainText(text, false)] }] }
  }
  const children: RootContent[] = []
  for (const block of splitBlocks(text, bounds)) {
    if (block.type === 'plain') {
      addRest(children, block)
      continue
    }
    try {
      for (const node of parseBlock(block, bounds)) children.push(node)
    } catch {
      const source = block.type === 'markdown' ? block.source : block.value
      children.push({ type: 'paragraph', children: [plainText(source, false)] })
    }
  }
  return { type: 'root', children }
}

/** Long text is laid out in pieces of at most this many lines (or about this many characters). */
export const PIECE = { lines: 100, chars: 8000 }

/**
 * Long text split into consecutive pieces that end just after a line ending (the first at the
 * first one), each of at most `PIECE.lines` lines and, unless one line is longer, about
 * `PIECE.chars` characters; they join back into the text. A short text is one piece. The
 * renderer gives each piece after the first a block the browser lays out only on screen.
 *
 * @example piecesOf('a\n'.repeat(220)).length // 4: 'a\n', then 100, 100 and 19 lines
 */
export function piecesOf(text: string, piece: typeof PIECE = PIECE): string[] {
  const ends = [...text.matchAll(/\r\n|\r|\n/g)].map((m) => m.index + m[0].length)
  if (ends.length < piece.lines && text.length <= piece.chars) return [text]
  const first = ends[0]
  if (first === undefined) return [text]
  const out = [text.slice(0, first)]
  let start = first
  let lines = 0
  for (const end of ends.slice(1)) {
    lines++
    if (lines >= piece.lines || end - start >= piece.chars) {
      out.push(text.slice(start, end))
      start = end
      lines = 0
    }
  }
  if (start < text.length) out.push(text.slice(start))
  return out
}
