// The sources import each other without extensions (bundler resolution), which Node's ESM loader
// and `moduleResolution: node16/nodenext` refuse. After `tsc -b`, this rewrites every relative
// specifier in the emitted `.js` and `.d.ts` files to the file it names (`./x` → `./x.js`,
// `./dir` → `./dir/index.js`), so the built packages load in plain Node and type-check anywhere.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
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
  if (next !== text) writeFileSync(file, next)
  return next !== text
}

let changed = 0
for (const pkg of readdirSync(join(root, 'packages'))) {
  const dist = join(root, 'packages', pkg, 'dist')
  if (!existsSync(dist)) continue
  for (const file of walk(dist)) if (rewrite(file)) changed++
}
console.log(`add-js-extensions: ${changed} files rewritten`)
