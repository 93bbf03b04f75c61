import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src')
const SOURCE = /\.tsx?$/

/**
 * Every source file (relative to src, without `.ts`/`.tsx`) and the local modules it imports,
 * type-only imports and re-exports included: a type circle is still a circle for the reader.
 * Imports of other files (`.css`) are left out.
 */
function importGraph(): Map<string, string[]> {
  const files: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path)
    }
  }
  walk(SRC)
  const names = new Set(files.map((f) => relative(SRC, f).replace(SOURCE, '')))
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    const targets = [...text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)]
      .map((m) => relative(SRC, resolve(dirname(file), m[1] as string)).replace(SOURCE, ''))
      .filter((t) => names.has(t))
    graph.set(relative(SRC, file).replace(SOURCE, ''), targets)
  }
  return graph
}

/** Each import circle once, as `a → b → a`. */
function circles(graph: Map<string, string[]>): string[] {
  const found: string[] = []
  const state = new Map<string, 'open' | 'done'>()
  const visit = (node: string, path: string[]) => {
    if (state.get(node) === 'done') return
    if (state.get(node) === 'open') {
      found.push([...path.slice(path.indexOf(node)), node].join(' → '))
      return
    }
    state.set(node, 'open')
    for (const next of graph.get(node) ?? []) visit(next, [...path, node])
    state.set(node, 'done')
  }
  for (const node of graph.keys()) visit(node, [])
  return found
}

it('finds a circle when there is one (the check itself can fail)', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['a']],
  ])
  expect(circles(graph)).toEqual(['a → b → c → a'])
})

it('the web client source has no import circle', () => {
  const graph = importGraph()
  expect(graph.size).toBeGreaterThan(50)
  expect(circles(graph)).toEqual([])
})

it('arrows run one way: lib imports only lib (and the UI types), model never imports components or hooks', () => {
  const graph = importGraph()
  const wrong: string[] = []
  for (const [name, imports] of graph) {
    for (const target of imports) {
      if (name.startsWith('lib/') && !target.startsWith('lib/') && target !== 'model/types')
        wrong.push(`${name} → ${target}`)
      if (name.startsWith('model/') && (target.startsWith('components/') || target === 'hooks'))
        wrong.push(`${name} → ${target}`)
      if (name.startsWith('pwa/') && !target.startsWith('pwa/')) wrong.push(`${name} → ${target}`)
    }
  }
  expect(wrong).toEqual([])
})
