import fc from 'fast-check'
import type { Nodes, Root } from 'mdast'
import { describe, expect, test } from 'vitest'
import { MARKDOWN_BOUNDS, parseMarkdown } from '../../src/lib/markdown'
import { type Block, splitBlocks } from '../../src/lib/markdown-bound'
import { CORPUS, fill, LIMIT, PLAIN } from '../e2e/markdown-corpus'
import { depthOf, markdownish } from './markdown-helpers'

/** Letters and digits: what must survive formatting, whatever markup is consumed. */
function letters(s: string): string {
  return s.replace(/[^\p{L}\p{N}]/gu, '')
}

/**
 * Everything a reader can see of a tree, in order: text, code and a link's URL when its label
 * is not the URL itself (an autolink). Iterative: the tree may be deep.
 */
function visible(root: Nodes): string {
  let out = ''
  const stack: Nodes[] = [root]
  while (stack.length > 0) {
    const n = stack.pop() as Nodes
    if (n.type === 'code') out += `${n.lang ?? ''}${n.meta ?? ''}${n.value}`
    else if ('value' in n && typeof n.value === 'string') out += n.value
    if (n.type === 'link') stack.push({ type: 'text', value: '' }) // keeps order below
    if ('children' in n) {
      if (n.type === 'link' && text(n) !== n.url) stack.push({ type: 'text', value: n.url })
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as Nodes)
    }
  }
  return out
}

function text(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string') return node.value
  if ('children' in node) return node.children.map((c) => text(c as Nodes)).join('')
  return ''
}

function count(root: Nodes, type: string): number {
  let n = 0
  const stack: Nodes[] = [root]
  while (stack.length > 0) {
    const node = stack.pop() as Nodes
    if (node.type === type) n++
    if ('children' in node) for (const c of node.children) stack.push(c as Nodes)
  }
  return n
}

function markdownOf(blocks: Block[]): string {
  return blocks.map((b) => (b.type === 'markdown' ? b.source : '')).join('')
}

function plainOf(blocks: Block[]): string {
  const last = blocks.at(-1)
  return last?.type === 'plain' ? last.text : ''
}

describe('splitBlocks', () => {
  test('a short message is one piece of Markdown, as typed', () => {
    expect(splitBlocks('**hi** there\n\n> quoted')).toEqual([
      { type: 'markdown', source: '**hi** there\n\n> quoted' },
    ])
  })

  test('fenced code is taken out whole, never parsed, whatever it holds', () => {
    const code = `${'*a_ [b]('.repeat(5000)}\n\n${'> '.repeat(100)}`
    const blocks = splitBlocks(`before\n\n  \`\`\`ts  a\\*b\n${code}\n  \`\`\`\nafter`)
    expect(blocks).toEqual([
      { type: 'markdown', source: 'before\n\n' },
      { type: 'code', lang: 'ts', meta: 'a*b', value: code },
      { type: 'markdown', source: 'after' },
    ])
  })

  test('quote markers past the depth bound are escaped, so they show as typed', () => {
    const line = `${'> '.repeat(12)}deep`
    const [block] = splitBlocks(line)
    expect(block).toEqual({
      type: 'markdown',
      source: `${'> '.repeat(MARKDOWN_BOUNDS.quoteDepth)}\\${'> '.repeat(4)}deep`,
    })
  })

  test('past the delimiters of a paragraph, the rest of the message is plain text, cut at a space', () => {
    const text = `${'*a* '.repeat(40)}tail\n\nnext *para*`
    const blocks = splitBlocks(text)
    const md = markdownOf(blocks)
    expect((md.match(/\*/g) ?? []).length).toBeLessThanOrEqual(MARKDOWN_BOUNDS.delimiters)
    expect(md.endsWith(' ')).toBe(true)
    expect(md + plainOf(blocks)).toBe(text)
    expect(blocks.at(-1)).toMatchObject({ type: 'plain', links: true })
  })

  test('a new paragraph gets its own delimiters', () => {
    const text = `${'*a* '.repeat(15)}\n\n`.repeat(4)
    expect(splitBlocks(text)).toEqual([{ type: 'markdown', source: text }])
  })

  test('past the message budget, the rest is plain; with many links, without them', () => {
    const lines = fill('a\n')
    const blocks = splitBlocks(lines)
    expect(markdownOf(blocks).length).toBeLessThan(MARKDOWN_BOUNDS.tokens)
    expect(markdownOf(blocks) + plainOf(blocks)).toBe(lines)

    const urls = fill('https://a.b ')
    const many = splitBlocks(urls)
    expect(many.at(-1)).toMatchObject({ type: 'plain', links: false })
    expect(markdownOf(many) + plainOf(many)).toBe(urls)
  })

  test('a cut never splits a surrogate pair or a CRLF', () => {
    const emoji = `*${'😀'.repeat(MARKDOWN_BOUNDS.chars)}`
    const blocks = splitBlocks(emoji)
    const md = markdownOf(blocks)
    expect(md.length % 2).toBe(1)
    expect(md + plainOf(blocks)).toBe(emoji)
    const crlf = fill('a\r\n')
    const lines = splitBlocks(crlf)
    expect(markdownOf(lines).endsWith('\r')).toBe(false)
    expect(plainOf(lines).startsWith('\n')).toBe(false)
  })

  test('linear: whatever the input, the Markdown parsed stays within the budget', () => {
    fc.assert(
      fc.property(markdownish, fc.integer({ min: 1, max: 400 }), (unit, times) => {
        const text = unit.repeat(times).slice(0, LIMIT)
        const blocks = splitBlocks(text)
        const md = markdownOf(blocks)
        expect(md.length).toBeLessThanOrEqual(MARKDOWN_BOUNDS.chars + blocks.length + md.split('\n').length)
        for (const block of blocks) {
          if (block.type !== 'markdown') continue
          for (const paragraph of block.source.split(/(?:\r?\n|\r)[ \t]*(?:\r?\n|\r)/))
            expect((paragraph.match(/[*_~[\]`]/g) ?? []).length).toBeLessThanOrEqual(
              MARKDOWN_BOUNDS.delimiters,
            )
        }
        expect(blocks.filter((b) => b.type === 'plain').length).toBeLessThanOrEqual(1)
      }),
    )
  })
})

describe('hostile messages', () => {
  test.each(CORPUS.map((c) => [c.name, c.text] as const))(
    '%s: bounded depth, every letter shown',
    (_, text) => {
      const tree = parseMarkdown(text)
      expect(depthOf(tree)).toBeLessThanOrEqual(MARKDOWN_BOUNDS.depth)
      expect(count(tree, 'blockquote')).toBeLessThanOrEqual(MARKDOWN_BOUNDS.quoteDepth * 64)
      expect(letters(visible(tree))).toBe(letters(text))
    },
  )

  test('the quote bomb is eight quotes deep, with the other markers as text', () => {
    const tree = parseMarkdown(fill('> '))
    let node: Nodes = tree
    let quotes = 0
    while ('children' in node && node.children[0]?.type === 'blockquote') {
      node = node.children[0]
      quotes++
    }
    expect(quotes).toBe(MARKDOWN_BOUNDS.quoteDepth)
    expect(text(tree).replace(/\s/g, '')).toBe('>'.repeat(LIMIT / 2 - MARKDOWN_BOUNDS.quoteDepth))
  })

  test('nesting deeper than the bound shows its source as text', () => {
    const input = `${'*a '.repeat(30)}b${'*'.repeat(30)}`
    const tree = parseMarkdown(input)
    expect(depthOf(tree)).toBeLessThanOrEqual(MARKDOWN_BOUNDS.depth)
    expect(count(tree, 'emphasis')).toBe(MARKDOWN_BOUNDS.depth - 2)
    expect(text(tree)).toContain(`*a ${'*a '.repeat(1)}`)
    expect(letters(text(tree))).toBe(letters(input))
  })

  test('random Markdown-ish messages at the size limit: bounded depth and size, letters kept', () => {
    fc.assert(
      fc.property(markdownish, (unit) => {
        fc.pre(unit.length > 0)
        const text = fill(unit)
        const tree: Root = parseMarkdown(text)
        expect(depthOf(tree)).toBeLessThanOrEqual(MARKDOWN_BOUNDS.depth)
        let nodes = 0
        const stack: Nodes[] = [tree]
        while (stack.length > 0) {
          const n = stack.pop() as Nodes
          nodes++
          if ('children' in n) for (const c of n.children) stack.push(c as Nodes)
        }
        // Each node costs at least a token (its markup, or the text between).
        expect(nodes).toBeLessThanOrEqual(2 * MARKDOWN_BOUNDS.tokens + 10)
        if (!text.includes('](')) expect(letters(visible(tree))).toBe(letters(text))
      }),
      { numRuns: 50 },
    )
  }, 60_000)

  test('a plain message of the same size is formatted as usual', () => {
    expect(parseMarkdown(PLAIN).children).toHaveLength(1)
  })
})
