/** Helpers shared by the Markdown unit tests. */
import fc from 'fast-check'
import type { Nodes } from 'mdast'

/** How deep the tree goes (the root's children are at 1). Iterative: the tree may be deep. */
export function depthOf(root: Nodes): number {
  let max = 0
  const stack: [Nodes, number][] = [[root, 0]]
  while (stack.length > 0) {
    const [node, d] = stack.pop() as [Nodes, number]
    max = Math.max(max, d)
    if ('children' in node) for (const c of node.children) stack.push([c as Nodes, d + 1])
  }
  return max
}

/** The text of a tree's values, in order. Iterative. */
export function textOf(root: Nodes): string {
  let out = ''
  const stack: Nodes[] = [root]
  while (stack.length > 0) {
    const n = stack.pop() as Nodes
    if ('value' in n && typeof n.value === 'string') out += n.value
    if ('children' in n) for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as Nodes)
  }
  return out
}

/** Markdown-ish text: the subset's markup, what it switches off, line ends, links and words. */
export const markdownish = fc
  .array(
    fc.constantFrom(
      '*',
      '**',
      '_',
      '~',
      '~~',
      '`',
      '```',
      '~~~',
      '[',
      ']',
      '](',
      '(',
      ')',
      '<',
      '>',
      '> ',
      '\\',
      '!',
      '&amp;',
      '#',
      '- ',
      '1. ',
      '\n',
      '\n\n',
      '\r\n',
      '\r',
      ' ',
      '  ',
      '\t',
      'a',
      'bc',
      'é',
      '😀',
      'https://x.y/z',
      '<https://x.y>',
      'js',
      '"t"',
    ),
    { maxLength: 80 },
  )
  .map((parts) => parts.join(''))

/** Lines built from fences, quote markers, indents and escapes, joined by one kind of line end. */
export const markdownLines = fc
  .tuple(
    fc.array(
      fc
        .array(
          fc.constantFrom(
            '```',
            '~~~',
            '````',
            ' ',
            '\t',
            '  ',
            '>',
            '> ',
            'a',
            '*b*',
            'js',
            ' x',
            '`',
            '~',
            '\\`',
            '\\',
          ),
          { maxLength: 6 },
        )
        .map((p) => p.join('')),
      { maxLength: 12 },
    ),
    fc.constantFrom('\n', '\r\n', '\r'),
  )
  .map(([lines, eol]) => lines.join(eol))
