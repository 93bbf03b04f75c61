/**
 * The rule of the pure packages (`@roost/nip29`, `@roost/read-state`), read from their sources:
 * no socket, timer, file or database, and no state of their own. Each package's
 * `test/layers.test.ts` runs it over its `src`. What is checked, per file:
 * - imports: relative ones, and only the pure entry points of the packages allowed (type-only
 *   imports may name any entry point: they are erased). The root `nostr-tools` entry bundles its
 *   relay and pool (a WebSocket and timers), so values come from its subpaths;
 * - globals: no timers, sockets, HTTP, storage, workers or process (`setTimeout`, `WebSocket`,
 *   `fetch`, `indexedDB`, `process`, … and `globalThis`, the way around them);
 * - module state: no top-level `let`/`var`, and no empty `Map`/`Set`/`WeakMap`/`WeakSet` at the top
 *   level (a cache or registry belongs to the caller that holds it).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'

/** Entry points a pure package may take values from. */
export const PURE_MODULES: readonly string[] = [
  'nostr-tools/core',
  'nostr-tools/pure',
  'nostr-tools/nip19',
  'nostr-tools/nip44',
  'nostr-tools/filter',
  'nostr-tools/kinds',
  'nostr-tools/utils',
]

const FORBIDDEN_GLOBALS = new Set([
  'setTimeout',
  'setInterval',
  'setImmediate',
  'clearTimeout',
  'clearInterval',
  'queueMicrotask',
  'requestAnimationFrame',
  'WebSocket',
  'fetch',
  'XMLHttpRequest',
  'EventSource',
  'indexedDB',
  'localStorage',
  'sessionStorage',
  'Worker',
  'process',
  'require',
  'globalThis',
])

const COLLECTIONS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet'])

/** Every `.ts` file under `dir`. */
function sources(dir: string): string[] {
  const out: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...sources(path))
    else if (entry.name.endsWith('.ts')) out.push(path)
  }
  return out
}

/** Whether `node` names a property, a member or a parameter rather than reading a variable. */
function isDeclaredName(node: ts.Identifier): boolean {
  const p = node.parent
  if (ts.isPropertyAccessExpression(p) && p.name === node) return true
  if (
    (ts.isPropertyAssignment(p) ||
      ts.isPropertyDeclaration(p) ||
      ts.isPropertySignature(p) ||
      ts.isMethodDeclaration(p) ||
      ts.isMethodSignature(p) ||
      ts.isGetAccessorDeclaration(p) ||
      ts.isSetAccessorDeclaration(p) ||
      ts.isParameter(p) ||
      ts.isBindingElement(p) ||
      ts.isVariableDeclaration(p)) &&
    p.name === node
  )
    return true
  return ts.isQualifiedName(p) || ts.isTypeReferenceNode(p)
}

function typeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly
  const clause = node.importClause
  if (!clause) return false // a side-effect import runs the module
  if (clause.isTypeOnly) return true
  if (clause.name) return false
  const bindings = clause.namedBindings
  return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.every((e) => e.isTypeOnly)
}

/** What breaks the rule in the sources under `srcDir`, one line each (`file: what`). */
export function pureLayerViolations(srcDir: string, allowed: readonly string[] = PURE_MODULES): string[] {
  const out: string[] = []
  for (const file of sources(srcDir)) {
    const name = relative(srcDir, file)
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true)
    const module = (spec: string, isTypeOnly: boolean) => {
      if (spec.startsWith('./') || spec.startsWith('../')) return
      if (isTypeOnly && (spec === 'nostr-tools' || spec.startsWith('nostr-tools/'))) return
      if (!allowed.includes(spec)) out.push(`${name}: imports '${spec}'`)
    }
    for (const stmt of sf.statements) {
      if ((ts.isImportDeclaration(stmt) || ts.isExportDeclaration(stmt)) && stmt.moduleSpecifier)
        module((stmt.moduleSpecifier as ts.StringLiteral).text, typeOnly(stmt))
      if (ts.isVariableStatement(stmt)) {
        const list = stmt.declarationList
        if (!(list.flags & ts.NodeFlags.Const)) out.push(`${name}: module-level let/var`)
        for (const d of list.declarations) {
          const init = d.initializer
          if (
            init &&
            ts.isNewExpression(init) &&
            ts.isIdentifier(init.expression) &&
            COLLECTIONS.has(init.expression.text) &&
            (init.arguments?.length ?? 0) === 0
          )
            out.push(`${name}: module-level ${init.expression.text} (${d.name.getText(sf)})`)
        }
      }
    }
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        const arg = node.arguments[0]
        out.push(`${name}: dynamic import(${arg ? arg.getText(sf) : ''})`)
      }
      if (ts.isIdentifier(node) && FORBIDDEN_GLOBALS.has(node.text) && !isDeclaredName(node))
        out.push(`${name}: uses ${node.text}`)
      ts.forEachChild(node, visit)
    }
    visit(sf)
  }
  return out
}
