/**
 * The Markdown subset messages are written in: bold, italic, strikethrough, inline code, fenced
 * code blocks, block quotes and links. Parsed by mdast-util-from-markdown (micromark, CommonMark
 * to the letter) with GFM strikethrough into an mdast tree that `Markdown.tsx` renders as React
 * elements; raw HTML, headings, lists, images, indented code, thematic breaks and character
 * references are switched off at the tokenizer, so such text stays exactly as typed.
 */
import type { Root } from 'mdast'
import { fromMarkdown } from 'mdast-util-from-markdown'
import { gfmStrikethroughFromMarkdown } from 'mdast-util-gfm-strikethrough'
import { gfmStrikethrough } from 'micromark-extension-gfm-strikethrough'

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

const OFF = { disable: { null: DISABLED } }
const STRIKE = gfmStrikethrough({ singleTilde: false })
const STRIKE_TREE = gfmStrikethroughFromMarkdown()

/** Longer content is shown as plain text: parsing stays bounded whatever a peer sends. */
export const MAX_MARKDOWN = 64 * 1024

/**
 * The mdast tree of a message's content, or `undefined` when it is too long to format (render
 * it as plain text then). Never throws.
 *
 * @example parseMarkdown('**hi** ~~there~~') // root > paragraph > [strong, text, delete]
 */
export function parseMarkdown(text: string): Root | undefined {
  if (text.length > MAX_MARKDOWN) return undefined
  try {
    return fromMarkdown(text, { extensions: [OFF, STRIKE], mdastExtensions: [STRIKE_TREE] })
  } catch {
    return undefined
  }
}
