import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../src')

/** Every source file (relative to src, without `.ts`) and the local modules it imports, types included. */
function importGraph(): Map<string, string[]> {
  const files: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.ts')) files.push(path)
    }
  }
  walk(SRC)
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const name = relative(SRC, file).replace(/\.ts$/, '')
    const text = readFileSync(file, 'utf8')
    const targets = [...text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)].map((m) =>
      relative(SRC, resolve(dirname(file), m[1] as string)),
    )
    graph.set(name, targets)
  }
  return graph
}

it('the relay source has no import circle', () => {
  const graph = importGraph()
  const cycles: string[] = []
  const state = new Map<string, 'open' | 'done'>()
  const visit = (node: string, path: string[]) => {
    if (state.get(node) === 'done') return
    if (state.get(node) === 'open') {
      cycles.push([...path.slice(path.indexOf(node)), node].join(' → '))
      return
    }
    state.set(node, 'open')
    for (const next of graph.get(node) ?? []) visit(next, [...path, node])
    state.set(node, 'done')
  }
  for (const node of graph.keys()) visit(node, [])
  expect(cycles).toEqual([])
})

it('arrows run one way: connection, query and intake never import the relay, the engine or each other', () => {
  const graph = importGraph()
  const parts = ['connection', 'query', 'intake']
  const above = ['relay', 'engine', 'admin', 'demo', 'cli', 'index', 'http']
  for (const part of parts) {
    const imports = graph.get(part) ?? []
    for (const other of [...parts.filter((p) => p !== part), ...above]) expect(imports).not.toContain(other)
  }
  for (const [name, imports] of graph) {
    if (!name.startsWith('groups/') && !name.startsWith('store/')) continue
    for (const target of imports)
      expect(
        target.startsWith('groups/') ||
          target.startsWith('store/') ||
          ['profiles', 'options', 'errors', 'optional'].includes(target),
      ).toBe(true)
  }
})
