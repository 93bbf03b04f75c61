// The sources import each other without extensions (bundler resolution), which Node's ESM loader
// and `moduleResolution: node16/nodenext` refuse. After `tsc -b`, this rewrites every relative
// specifier in the emitted `.js` and `.d.ts` files to the file it names (`./x` → `./x.js`,
// `./dir` → `./dir/index.js`), so the built packages load in plain Node and type-check anywhere;
// `new URL('./worker.ts', import.meta.url)` becomes `./worker.js`.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

// `from './x'`, `import './x'`, `import('./x')`, `export … from './x'` (and `import("./x")` in types).
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.\.?\/[^'"]*|\.\.?)\2/g

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path, out)
    else if (/\.(js|d\.ts)$/.test(name)) out.push(path)
  }
  return out
}

/** Rewrites one emitted file; returns whether it changed. Throws for a specifier naming no file. */
function rewrite(file) {
  const ext = file.endsWith('.d.ts') ? '.d.ts' : '.js'
  const here = dirname(file)
  const text = readFileSync(file, 'utf8')
  const next = text.replace(SPECIFIER, (whole, lead, quote, spec) => {
    if (/\.(m?js|json)$/.test(spec)) return whole
    const target = resolve(here, spec)
    let fixed
    if (existsSync(target + ext)) fixed = `${spec}.js`
    else if (existsSync(join(target, `index${ext}`))) fixed = `${spec.replace(/\/$/, '')}/index.js`
    else throw new Error(`${file}: cannot resolve ${spec}`)
    return `${lead}${quote}${fixed}${quote}`
  })
  // A worker or asset named by `new URL('./x.ts', import.meta.url)` runs as its emitted `./x.js`.
  const final =
    ext === '.js'
      ? next.replace(/(\bnew URL\(\s*)(['"])(\.\.?\/[^'"]+)\.ts\2/g, (whole, lead, quote, spec) =>
          existsSync(resolve(here, `${spec}.js`)) ? `${lead}${quote}${spec}.js${quote}` : whole,
        )
      : next
  if (final !== text) writeFileSync(file, final)
  return final !== text
}

/** Rewrites every `.js` and `.d.ts` under `dist`; returns how many files changed. */
export function addJsExtensions(dist) {
  let changed = 0
  for (const file of walk(dist)) if (rewrite(file)) changed++
  return changed
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
  let changed = 0
  for (const pkg of readdirSync(join(root, 'packages'))) {
    const dist = join(root, 'packages', pkg, 'dist')
    if (existsSync(dist)) changed += addJsExtensions(dist)
  }
  console.log(`add-js-extensions: ${changed} files rewritten`)
}
