// The packages as a user outside this repository gets them: build, `npm pack` every package,
// install the tarballs into an empty temporary project, then
//   (a) a plain Node ESM script starts `roost-relay` from the installed bin and round-trips a
//       message through @roost/client with its SQLite store (test/consumer/project/relay-and-client.mjs),
//       with the relay on a SQLite file, then on a throwaway PostgreSQL server once `pg` (an
//       optional peer, refused by name while missing) is installed,
//   (b) `tsc --noEmit` (nodenext) checks a TypeScript file using the public API (api.ts),
//   (bot) a plain Node ESM bot answers "ping" in a thread (bot.mjs), against a relay it starts
//       in-process with startRelay,
//   (c) a React page (main.tsx: groups, unread counts, live messages) passes strict `tsc` and
//       Vite builds it; the bundle must hold no better-sqlite3, ws or node: module,
// and every entry point's exported names must equal test/consumer/exports.json, and the names and
// kinds its installed .d.ts files declare test/consumer/declarations.json.
//
// `node scripts/consumer-test.mjs --update` rewrites both snapshots from the installed packages.
// better-sqlite3 is native: by default the project reuses the copy this repository compiled for
// the same Node (same version, copied and loaded for real); `--compile` builds it from source.
import { execFileSync, spawnSync } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { tsImport } from 'tsx/esm/api'
import ts from 'typescript'
import {
  declarationExports,
  diffDeclarationExports,
  readSnapshot,
  SOURCE_ENTRIES,
  writeSnapshot,
} from './declaration-exports.mjs'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const fixture = join(root, 'test/consumer/project')
const snapshotFile = join(root, 'test/consumer/exports.json')
const PACKAGES = ['nip29', 'read-state', 'client', 'relay', 'react']
const update = process.argv.includes('--update')
const compile = process.argv.includes('--compile')
const keep = process.argv.includes('--keep')

const walkFiles = (d) =>
  readdirSync(d, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walkFiles(join(d, e.name)) : [join(d, e.name)],
  )

const started = Date.now()
const step = (what) => console.log(`\n== consumer: ${what} (${((Date.now() - started) / 1000).toFixed(0)} s)`)
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: 'inherit', env: { ...process.env, NODE_ENV: '' } })
const version = (pkg) =>
  JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version

step('build')
run('npm', ['run', 'build'], root)

const dir = mkdtempSync(join(tmpdir(), 'roost-consumer-'))
try {
  step(`pack into ${dir}`)
  const tarballs = join(dir, 'tarballs')
  mkdirSync(tarballs)
  run(
    'npm',
    ['pack', '--silent', '--pack-destination', tarballs, ...PACKAGES.flatMap((p) => ['-w', `@roost/${p}`])],
    root,
  )
  const files = readdirSync(tarballs)
  const tarball = (p) => {
    const file = files.find((f) => f.startsWith(`roost-${p}-`) && f.endsWith('.tgz'))
    if (!file) throw new Error(`no tarball for @roost/${p} in ${files.join(', ')}`)
    return `file:tarballs/${file}`
  }
  for (const p of PACKAGES) {
    const listing = execFileSync('tar', ['-tzf', join(tarballs, tarball(p).slice('file:tarballs/'.length))], {
      encoding: 'utf8',
    })
    const stray = listing.split('\n').filter((f) => /\/test\/|\.test\.tsx?$|\.tsbuildinfo$/.test(f))
    if (stray.length) throw new Error(`@roost/${p} packs files it should not: ${stray.join(', ')}`)
    for (const needed of ['package/LICENSE', 'package/CHANGELOG.md', 'package/README.md'])
      if (!listing.split('\n').includes(needed)) throw new Error(`@roost/${p} does not pack ${needed}`)
  }

  step('install the tarballs into an empty project')
  cpSync(fixture, dir, { recursive: true })
  const own = Object.fromEntries(PACKAGES.map((p) => [`@roost/${p}`, tarball(p)]))
  const pkg = {
    name: 'roost-consumer',
    private: true,
    type: 'module',
    dependencies: {
      ...own,
      'better-sqlite3': version('better-sqlite3'),
      ws: `^${version('ws')}`,
      react: `^${version('react')}`,
      'react-dom': `^${version('react-dom')}`,
    },
    devDependencies: {
      typescript: version('typescript'),
      vite: version('vite'),
      '@types/node': `^${version('@types/node')}`,
      '@types/react': `^${version('@types/react')}`,
      '@types/react-dom': `^${version('@types/react-dom')}`,
    },
    // The tarballs' own dependencies on each other resolve to the tarballs, not the registry.
    overrides: own,
    allowScripts: { 'better-sqlite3': compile },
  }
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`)
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], dir)
  const native = join('build', 'Release', 'better_sqlite3.node')
  if (!compile) {
    const installed = JSON.parse(readFileSync(join(dir, 'node_modules/better-sqlite3/package.json'), 'utf8'))
    if (installed.version !== version('better-sqlite3'))
      throw new Error('better-sqlite3 versions differ; use --compile')
    cpSync(
      join(root, 'node_modules/better-sqlite3', native),
      join(dir, 'node_modules/better-sqlite3', native),
    )
    console.log(
      `better-sqlite3 ${installed.version}: reusing this repository's build for Node ${process.version}`,
    )
  }
  step('installed manifests and maps: no workspace-only condition, every map names a shipped file')
  let maps = 0
  for (const p of PACKAGES) {
    const installed = join(dir, 'node_modules/@roost', p)
    const manifest = readFileSync(join(installed, 'package.json'), 'utf8')
    if (manifest.includes('@roost/source') || /"(prepack|postpack)"/.test(manifest))
      throw new Error(`@roost/${p} was published with its workspace-only condition or pack scripts`)
    const { exports } = JSON.parse(manifest)
    for (const [key, target] of Object.entries(exports))
      if (key !== './package.json' && typeof target.default !== 'string')
        throw new Error(`@roost/${p} exports ${key} without a default condition`)
    for (const map of walkFiles(join(installed, 'dist')).filter((f) => f.endsWith('.map'))) {
      const { sources } = JSON.parse(readFileSync(map, 'utf8'))
      for (const source of sources) {
        const target = resolve(dirname(map), source)
        if (!target.startsWith(join(installed, 'src')) || !existsSync(target))
          throw new Error(`${map} points at ${source}, which the package does not ship`)
      }
      maps++
    }
    if (!existsSync(join(installed, 'dist/index.d.ts.map')))
      throw new Error(`@roost/${p} has no declaration maps`)
  }
  console.log(`${maps} source and declaration maps, each pointing into the shipped src/`)
  const cjs = `
    for (const p of ${JSON.stringify(PACKAGES)}) {
      require.resolve('@roost/' + p)
      if (typeof require('@roost/' + p) !== 'object') throw new Error('require(@roost/' + p + ') failed')
    }`
  execFileSync(process.execPath, ['--no-warnings', '-e', cjs], { cwd: dir, stdio: 'inherit' })
  console.log("require.resolve and require() (Node's require(esm)) find and load every package")

  step('exported names against test/consumer/exports.json')
  const probe = `
    import { readFileSync } from 'node:fs'
    const out = {}
    for (const p of ${JSON.stringify(PACKAGES)}) {
      const { exports } = JSON.parse(readFileSync('node_modules/@roost/' + p + '/package.json', 'utf8'))
      for (const key of Object.keys(exports)) {
        if (key === './package.json') continue
        const entry = '@roost/' + p + key.slice(1)
        out[entry] = Object.keys(await import(entry)).sort()
      }
    }
    console.log(JSON.stringify(out))`
  const actual = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: dir, encoding: 'utf8' }),
  )
  if (update) {
    writeFileSync(snapshotFile, `${JSON.stringify(actual, null, 2)}\n`)
    console.log(`wrote ${snapshotFile}`)
  } else {
    const expected = JSON.parse(readFileSync(snapshotFile, 'utf8'))
    const diffs = []
    for (const entry of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      const want = new Set(expected[entry] ?? [])
      const got = new Set(actual[entry] ?? [])
      const missing = [...want].filter((n) => !got.has(n))
      const extra = [...got].filter((n) => !want.has(n))
      if (missing.length || extra.length)
        diffs.push(`${entry}: missing ${JSON.stringify(missing)}, unexpected ${JSON.stringify(extra)}`)
    }
    if (diffs.length)
      throw new Error(
        `exported names differ from test/consumer/exports.json (an API change? run with --update):\n${diffs.join('\n')}`,
      )
    console.log(`${Object.keys(actual).length} entry points match`)
  }

  step('declaration exports (names and kinds in the installed .d.ts) against test/consumer/declarations.json')
  const installedEntries = Object.fromEntries(
    Object.keys(SOURCE_ENTRIES).map((entry) => {
      const [, p, sub] = entry.match(/^@roost\/([^/]+)(?:\/(.+))?$/)
      return [entry, join(dir, 'node_modules/@roost', p, 'dist', `${sub ?? 'index'}.d.ts`)]
    }),
  )
  const declared = declarationExports(installedEntries, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    jsx: ts.JsxEmit.ReactJSX,
    types: ['node'],
    typeRoots: [join(dir, 'node_modules/@types')],
  })
  if (update) {
    writeSnapshot(declared)
    console.log(`wrote test/consumer/declarations.json`)
  } else {
    const diffs = diffDeclarationExports(readSnapshot(), declared)
    if (diffs.length)
      throw new Error(
        `declaration exports differ from test/consumer/declarations.json (an API change? run with --update):\n${diffs.join('\n')}`,
      )
    console.log(
      `${Object.values(declared).reduce((n, names) => n + Object.keys(names).length, 0)} declared names match`,
    )
  }

  step('(a) roost-relay from the installed bin, @roost/client with its SQLite store, plain Node')
  run(process.execPath, ['relay-and-client.mjs'], dir)

  step('(bot) a Node bot answering "ping" in a thread, against startRelay in-process, plain Node ESM')
  run(process.execPath, ['bot.mjs'], dir)

  step('(a) the same on PostgreSQL: refused by name without pg, then with pg installed')
  const { startPgServer } = await tsImport('../packages/relay/test/pg-server.ts', import.meta.url)
  const pgServer = await startPgServer()
  try {
    const bin = join(dir, 'node_modules/.bin/roost-relay')
    const missing = spawnSync(bin, ['--port', '0', '--db', pgServer.url], { cwd: dir, encoding: 'utf8' })
    if (missing.status === 0 || !/npm install pg\b/.test(missing.stderr))
      throw new Error(
        `without pg, roost-relay --db postgres://… should exit naming the package (exit ${missing.status}): ${missing.stderr}${missing.stdout}`,
      )
    console.log(`without pg: ${missing.stderr.trim().split('\n')[0]}`)
    run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `pg@${version('pg')}`], dir)
    run(process.execPath, ['relay-and-client.mjs', pgServer.url], dir)
  } finally {
    pgServer.stop()
  }

  step('(b) tsc --noEmit over the public API (nodenext)')
  run(join(dir, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], dir)

  step('(c) strict tsc over the React page (main.tsx, bundler resolution)')
  run(join(dir, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.page.json'], dir)

  step('(c) vite build of the React page')
  run(join(dir, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], dir)
  const assets = join(dir, 'dist/assets')
  const bundle = readdirSync(assets)
    .filter((f) => f.endsWith('.js'))
    .map((f) => readFileSync(join(assets, f), 'utf8'))
    .join('\n')
  for (const [what, pattern] of [
    ['better-sqlite3', /better-sqlite3|better_sqlite3/],
    ['ws', /ws does not work in the browser|WebSocketServer/],
    ['a node: module', /["']node:[a-z_/]+["']/],
  ]) {
    if (pattern.test(bundle)) throw new Error(`the browser bundle contains ${what}`)
  }
  if (!bundle.includes('useSyncExternalStore') && !bundle.includes('groups,'))
    throw new Error('the browser bundle does not look like the page (no hooks)')
  console.log(`bundle: ${(bundle.length / 1024).toFixed(0)} kB of JavaScript, no better-sqlite3, ws or node:`)

  step('passed')
} finally {
  if (keep) console.log(`kept ${dir}`)
  else rmSync(dir, { recursive: true, force: true })
}
