// The type-level half of the export snapshots. test/consumer/exports.json lists the names an entry
// point exports at run time; interfaces and type aliases (`GroupSnapshot`, `RoostOptions`,
// `Signer`, …) vanish from JavaScript, so renaming one would not show there. This asks the
// TypeScript compiler for every name an entry point's declarations export, with its kind
// (`class`, `function`, `interface`, `type`, `const`, …), and compares them with
// test/consumer/declarations.json.
//
// Checked twice: `npm test` (test/declaration-exports.test.ts) over the sources, where a name
// tagged `@internal` is left out as the build strips it, and `npm run test:consumer` over the
// `.d.ts` files of the installed tarballs. After an intended API change:
//   node scripts/declaration-exports.mjs --update
// rewrites the snapshot from the sources (no build needed); review the diff like any API change.
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import ts from 'typescript'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const SNAPSHOT = join(root, 'test/consumer/declarations.json')

/** Entry point → its TypeScript source in this repository. */
export const SOURCE_ENTRIES = {
  '@roost/nip29': 'packages/nip29/src/index.ts',
  '@roost/read-state': 'packages/read-state/src/index.ts',
  '@roost/client': 'packages/client/src/index.ts',
  '@roost/client/sqlite': 'packages/client/src/sqlite.ts',
  '@roost/relay': 'packages/relay/src/index.ts',
  '@roost/react': 'packages/react/src/index.ts',
}

const KINDS = [
  [ts.SymbolFlags.Class, 'class'],
  [ts.SymbolFlags.Interface, 'interface'],
  [ts.SymbolFlags.TypeAlias, 'type'],
  [ts.SymbolFlags.Enum, 'enum'],
  [ts.SymbolFlags.Function, 'function'],
  [ts.SymbolFlags.Variable, 'const'],
  [ts.SymbolFlags.Module, 'namespace'],
]

const isInternal = (symbol) =>
  (symbol.declarations ?? []).some((d) => ts.getJSDocTags(d).some((t) => t.tagName.text === 'internal'))

/**
 * Every name each entry file exports, with its kind(s) (`const+type` for a name that is both),
 * names sorted as JavaScript's `.sort()` sorts them.
 * @param {Record<string, string>} entries entry point name → file (absolute, or relative to the repository)
 * @param {ts.CompilerOptions} options
 * @returns {Record<string, Record<string, string>>}
 */
export function declarationExports(entries, options) {
  const files = Object.fromEntries(Object.entries(entries).map(([k, f]) => [k, resolve(root, f)]))
  const program = ts.createProgram(Object.values(files), { noEmit: true, skipLibCheck: true, ...options })
  const checker = program.getTypeChecker()
  const out = {}
  for (const [entry, file] of Object.entries(files)) {
    const source = program.getSourceFile(file)
    if (!source) throw new Error(`${entry}: ${file} is not in the program`)
    const module = checker.getSymbolAtLocation(source)
    if (!module) throw new Error(`${entry}: ${file} is not a module`)
    const names = {}
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
      if (isInternal(symbol) || isInternal(exported)) continue
      const kinds = KINDS.filter(([flag]) => symbol.flags & flag).map(([, kind]) => kind)
      names[exported.name] = kinds.join('+') || 'unknown'
    }
    out[entry] = Object.fromEntries(
      Object.keys(names)
        .sort()
        .map((n) => [n, names[n]]),
    )
  }
  return out
}

/** The snapshot as the sources give it (the workspace's own compiler settings). */
export function sourceDeclarationExports() {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'))
      },
    },
  )
  return declarationExports(SOURCE_ENTRIES, config.options)
}

/** Lines naming what differs between two snapshots; empty when they agree. */
export function diffDeclarationExports(expected, actual) {
  const diffs = []
  for (const entry of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    const want = expected[entry] ?? {}
    const got = actual[entry] ?? {}
    for (const name of new Set([...Object.keys(want), ...Object.keys(got)])) {
      if (want[name] === got[name]) continue
      if (!(name in got)) diffs.push(`${entry}: ${name} (${want[name]}) is no longer exported`)
      else if (!(name in want)) diffs.push(`${entry}: ${name} (${got[name]}) is newly exported`)
      else diffs.push(`${entry}: ${name} was ${want[name]}, is now ${got[name]}`)
    }
  }
  return diffs
}

export const readSnapshot = () => JSON.parse(readFileSync(SNAPSHOT, 'utf8'))
export const writeSnapshot = (snapshot) => writeFileSync(SNAPSHOT, `${JSON.stringify(snapshot, null, 2)}\n`)

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const actual = sourceDeclarationExports()
  if (process.argv.includes('--update')) {
    writeSnapshot(actual)
    console.log(`wrote ${SNAPSHOT}`)
  } else {
    const diffs = diffDeclarationExports(readSnapshot(), actual)
    if (diffs.length) {
      console.error(`${diffs.join('\n')}\n(an intended API change? run with --update)`)
      process.exit(1)
    }
    console.log('declaration exports match test/consumer/declarations.json')
  }
}
