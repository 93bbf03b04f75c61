import fc from 'fast-check'
import type { Nodes } from 'mdast'
import { fromMarkdown } from 'mdast-util-from-markdown'
import { describe, expect, test } from 'vitest'
import {
  MARKDOWN_BOUNDS,
  MARKDOWN_OPTIONS,
  MAX_MARKDOWN,
  PIECE,
  PREVIEW,
  parseMarkdown,
  piecesOf,
  previewOf,
} from '../../src/lib/markdown'
import { depthOf, markdownish, markdownLines } from './markdown-helpers'

/** The node types in a tree, depth first. */
function types(node: Nodes): string[] {
  const out: string[] = [node.type]
  if ('children' in node) for (const c of node.children) out.push(...types(c as Nodes))
  return out
}

function text(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string') return node.value
  if ('children' in node) return node.children.map((c) => text(c as Nodes)).join('')
  return ''
}

/** A copy without `position` (the bounded parse numbers positions per piece). */
function bare(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(bare)
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(node)) if (k !== 'position') out[k] = bare(v)
    return out
  }
  return node
}

const UNBOUNDED = {
  quoteDepth: Number.MAX_SAFE_INTEGER,
  depth: Number.MAX_SAFE_INTEGER,
  tokens: Number.MAX_SAFE_INTEGER,
  delimiters: Number.MAX_SAFE_INTEGER,
  chars: Number.MAX_SAFE_INTEGER,
  restLinks: Number.MAX_SAFE_INTEGER,
}

describe('parseMarkdown', () => {
  test('the subset: bold, italic, strikethrough, inline code, fenced code, quotes, links', () => {
    const tree = parseMarkdown('**b** *i* ~~s~~ `c` [l](https://x.org)\n\n> q\n\n```\ncode\n```')
    expect(types(tree)).toEqual(
      expect.arrayContaining(['strong', 'emphasis', 'delete', 'inlineCode', 'link', 'blockquote', 'code']),
    )
  })

  test('HTML, headings, lists, images, rules and entities stay literal text', () => {
    for (const input of [
      '<b>x</b> <script>alert(1)</script>',
      '# title',
      '- item\n1. item',
      '![alt](https://x.org/a.png)',
      '---',
      '&amp; &#65;',
      '    indented code',
    ]) {
      const tree = parseMarkdown(input)
      const found = types(tree)
      for (const banned of ['html', 'heading', 'list', 'image', 'thematicBreak'])
        expect(found, input).not.toContain(banned)
      // An indented line stays a paragraph (its indentation is not kept).
      expect(text(tree).replace(/^ +/, ''), input).toBe(
        input.replace('![alt](https://x.org/a.png)', '!alt').replace(/^ +/, ''),
      )
    }
  })

  test('too long to format is one plain paragraph, and nothing ever throws', () => {
    const long = 'a*b*'.repeat(MAX_MARKDOWN / 4 + 1)
    const tree = parseMarkdown(long)
    expect(types(tree)).toEqual(['root', 'paragraph', 'text'])
    expect(text(tree)).toBe(long)
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 300 }), (s) => {
        const tree = parseMarkdown(s)
        expect(tree.type).toBe('root')
      }),
    )
  })

  test('parsed in pieces, a message gives exactly the tree micromark gives for the whole', () => {
    fc.assert(
      fc.property(markdownish, (s) => {
        expect(bare(parseMarkdown(s, UNBOUNDED)), JSON.stringify(s)).toEqual(
          bare(fromMarkdown(s, MARKDOWN_OPTIONS)),
        )
      }),
      { numRuns: 500 },
    )
  })

  test('fences, quotes, indents and tabs on many lines: the same tree again', () => {
    fc.assert(
      fc.property(markdownLines, (s) => {
        expect(bare(parseMarkdown(s, UNBOUNDED)), JSON.stringify(s)).toEqual(
          bare(fromMarkdown(s, MARKDOWN_OPTIONS)),
        )
      }),
      { numRuns: 500 },
    )
  })

  test('within the bounds, the pieces change nothing either', () => {
    fc.assert(
      fc.property(markdownish, (s) => {
        const bounded = parseMarkdown(s)
        // Short inputs rarely reach a bound; those that do are the next tests' business.
        fc.pre(depthOf(bounded) < MARKDOWN_BOUNDS.depth && !JSON.stringify(bounded).includes('"literal"'))
        const plainRest = bounded.children.at(-1)
        fc.pre(!(plainRest?.type === 'paragraph' && plainRest.position === undefined))
        expect(bare(bounded), JSON.stringify(s)).toEqual(bare(fromMarkdown(s, MARKDOWN_OPTIONS)))
      }),
      { numRuns: 500 },
    )
  })
})

describe('previewOf', () => {
  test('a message up to the preview size shows whole, a 120-line paste too', () => {
    expect(previewOf('short')).toBeUndefined()
    const paste = Array.from({ length: 120 }, (_, i) => `Paragraph ${i + 1} of a long paste.`).join('\n')
    expect(previewOf(paste)).toBeUndefined()
    expect(previewOf('a'.repeat(PREVIEW.chars))).toBeUndefined()
  })

  test('a longer one shows its first lines, or its first characters up to a space', () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const lines = Array.from({ length: PREVIEW.lines + 5 }, (_, i) => `line ${i}`).join(eol)
      expect(previewOf(lines)).toBe(lines.split(eol).slice(0, PREVIEW.lines).join(eol))
    }
    const words = 'word '.repeat(PREVIEW.chars)
    const cut = previewOf(words) as string
    expect(cut.length).toBeLessThanOrEqual(PREVIEW.chars)
    expect(cut.length).toBeGreaterThan(PREVIEW.chars - 10)
    expect(words.startsWith(cut) && cut.endsWith('word')).toBe(true)
  })

  test('never cuts a surrogate pair, and is a prefix of the message', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: PREVIEW.chars - 50, maxLength: PREVIEW.chars + 200 }),
        (s) => {
          const cut = previewOf(s)
          if (cut === undefined) return
          expect(s.startsWith(cut)).toBe(true)
          const last = cut.charCodeAt(cut.length - 1)
          expect(last >= 0xd800 && last <= 0xdbff).toBe(false)
        },
      ),
      { numRuns: 200 },
    )
  })
})

describe('piecesOf', () => {
  test('short text is one piece; long text joins back from pieces of bounded lines', () => {
    expect(piecesOf('a\nb')).toEqual(['a\nb'])
    expect(piecesOf('a\n'.repeat(2 * PIECE.lines + 20)).map((p) => p.split('\n').length - 1)).toEqual([
      1,
      PIECE.lines,
      PIECE.lines,
      19,
    ])
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'bb ', '\n', '\r\n', '\r', 'x'.repeat(900)), { maxLength: 400 }),
        (parts) => {
          const text = parts.join('')
          const pieces = piecesOf(text)
          expect(pieces.join('')).toBe(text)
          for (const [i, piece] of pieces.entries()) {
            if (pieces.length > 1) expect(piece.length).toBeGreaterThan(0)
            expect((piece.match(/\r\n|\r|\n/g) ?? []).length).toBeLessThanOrEqual(PIECE.lines)
            if (i < pieces.length - 1) expect(piece).toMatch(/(\r\n|\r|\n)$/)
          }
        },
      ),
    )
  })
})
