/**
 * The declarations @roost/client ships keep what only the registry calls off the public surface:
 * `Group`'s constructor and its core, `GroupsRegistry`'s and `GroupAdmin`'s constructors are
 * `@internal`, and the build strips `@internal` from the `.d.ts`. Checked on the declaration emit
 * of the sources with the build's own compiler options (per file, without type checking: cheap).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const SRC = join(PKG, 'src')

function buildOptions(): ts.CompilerOptions {
  const host: ts.ParseConfigFileHost = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} }
  const parsed = ts.getParsedCommandLineOfConfigFile(join(PKG, 'tsconfig.build.json'), {}, host)
  if (!parsed) throw new Error('tsconfig.build.json does not parse')
  return parsed.options
}

/** The `.d.ts` of one source file (path relative to src, without `.ts`). */
function declaration(name: string, options: ts.CompilerOptions): string {
  const fileName = join(SRC, `${name}.ts`)
  return ts.transpileDeclaration(readFileSync(fileName, 'utf8'), { fileName, compilerOptions: options })
    .outputText
}

/** Every source module (relative to src, without `.ts`). */
function modules(): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.ts')) out.push(relative(SRC, path).replace(/\.ts$/, ''))
    }
  }
  walk(SRC)
  return out
}

/** The declarations a user of the entry points can reach: from index and sqlite, along relative imports. */
function reachable(options: ts.CompilerOptions): Map<string, string> {
  const known = new Set(modules())
  const seen = new Map<string, string>()
  const queue = ['index', 'sqlite']
  while (queue.length) {
    const name = queue.shift() as string
    if (seen.has(name)) continue
    const text = declaration(name, options)
    seen.set(name, text)
    for (const m of text.matchAll(/from\s+'(\.{1,2}\/[^']+)'/g)) {
      const target = relative(SRC, resolve(dirname(join(SRC, name)), (m[1] as string).replace(/\.js$/, '')))
      queue.push(known.has(target) ? target : `${target}/index`)
    }
  }
  return seen
}

/** The body of `declare class <name> { … }` in a declaration. */
function classBody(dts: string, name: string): string {
  const start = dts.indexOf(`declare class ${name} `)
  expect(start, `class ${name} is declared`).toBeGreaterThanOrEqual(0)
  let depth = 0
  for (let i = dts.indexOf('{', start); i < dts.length; i++) {
    if (dts[i] === '{') depth++
    else if (dts[i] === '}' && --depth === 0) return dts.slice(start, i + 1)
  }
  throw new Error(`class ${name} does not close`)
}

/** What only the registry calls on a group's core. */
const CORE_ONLY =
  /^\s*(ingest\w*|eose|refuse|resubscribed|flushStore|relayKeyChanged|rememberMembership|setLocalMembership|discard|forget|close)\(/m

describe('@roost/client declarations', () => {
  const options = buildOptions()

  it('the build strips @internal from its declarations', () => {
    expect(options.declaration).toBe(true)
    expect(options.stripInternal).toBe(true)
  })

  it('Group declares no constructor and none of its core’s methods; GroupsRegistry and GroupAdmin no constructor', () => {
    const group = classBody(declaration('groups/group', options), 'Group')
    expect(group).toContain('reply(target') // the public methods are there
    expect(group).toContain('readonly subscribe:')
    expect(group).not.toContain('constructor(')
    expect(group).not.toMatch(CORE_ONLY)
    expect(group).not.toContain('GroupInside')
    expect(classBody(declaration('groups/registry', options), 'GroupsRegistry')).not.toContain('constructor(')
    expect(classBody(declaration('groups/group-admin', options), 'GroupAdmin')).not.toContain('constructor(')
    // without stripping, the constructor would be there: the check above can fail
    const unstripped = classBody(declaration('groups/group', { ...options, stripInternal: false }), 'Group')
    expect(unstripped).toContain('constructor(inside: GroupInside)')
  })

  it('no declaration reachable from the entry points declares the core or the facade’s view of it', () => {
    const dts = reachable(options)
    expect(dts.has('groups/group')).toBe(true)
    expect(dts.has('groups/registry')).toBe(true)
    const leaks = [...dts]
      .filter(([, text]) => /(class GroupCore|interface GroupInside|function coreOf)\b/.test(text))
      .map(([name]) => name)
    expect(leaks).toEqual([])
  })
})
