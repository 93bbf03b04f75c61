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

/** The imports from files under `from` that land in any of `forbidden` (a folder with `/`, or a module). */
function arrows(graph: Map<string, string[]>, from: string, forbidden: string[]): string[] {
  const hits: string[] = []
  for (const [name, imports] of graph) {
    if (!name.startsWith(from)) continue
    for (const target of imports)
      if (forbidden.some((f) => (f.endsWith('/') ? `${target}/`.startsWith(f) : target === f)))
        hits.push(`${name} → ${target}`)
  }
  return hits
}

/** Everything that builds on the pool: a lower layer never imports these. */
const ABOVE_POOL = ['groups/', 'read-state/', 'media/', 'roost', 'relays', 'relay-list', 'index']

it('the socket factory sits below everything: socket/ imports nothing of the client', () => {
  const socket = [...importGraph()].filter(([name]) => name.startsWith('socket/'))
  expect(socket.map(([name]) => name)).toContain('socket/websocket')
  expect(socket.flatMap(([name, imports]) => imports.map((i) => `${name} → ${i}`))).toEqual([])
})

it('signers sit below the pool: signers/ never imports pool/ or anything built on it', () => {
  expect(arrows(importGraph(), 'signers/', ['pool/', 'store/', ...ABOVE_POOL])).toEqual([])
})

it('the pool never imports the groups, read state, stores or the app wiring above it', () => {
  expect(arrows(importGraph(), 'pool/', ['store/', ...ABOVE_POOL])).toEqual([])
})
