import fc from 'fast-check'
import type { Nodes } from 'mdast'
import { describe, expect, test } from 'vitest'
import { MAX_MARKDOWN, parseMarkdown } from '../../src/lib/markdown'

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

describe('parseMarkdown', () => {
  test('the subset: bold, italic, strikethrough, inline code, fenced code, quotes, links', () => {
    const tree = parseMarkdown('**b** *i* ~~s~~ `c` [l](https://x.org)\n\n> q\n\n```\ncode\n```')!
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
      const tree = parseMarkdown(input)!
      const found = types(tree)
      for (const banned of ['html', 'heading', 'list', 'image', 'thematicBreak'])
        expect(found, input).not.toContain(banned)
      // An indented line stays a paragraph (its indentation is not kept).
      expect(text(tree).replace(/^ +/, ''), input).toBe(
        input.replace('![alt](https://x.org/a.png)', '!alt').replace(/^ +/, ''),
      )
    }
  })

  test('too long to format gives undefined, and nothing ever throws', () => {
    expect(parseMarkdown('a'.repeat(MAX_MARKDOWN + 1))).toBeUndefined()
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 300 }), (s) => {
        const tree = parseMarkdown(s)
        expect(tree?.type).toBe('root')
      }),
    )
  })
})
