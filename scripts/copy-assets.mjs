// After `tsc -b`: copies the files the built packages read at run time but tsc does not emit
// (the relay's PostgreSQL migrations, `src/store/migrations/*.sql`) into each package's `dist/`,
// so a packed and installed package finds them beside the JavaScript that reads them.
import { cpSync, existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const ASSET = /\.sql$/

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) walk(path, out)
    else if (ASSET.test(name)) out.push(path)
  }
  return out
}

let copied = 0
for (const pkg of readdirSync(join(root, 'packages'))) {
  const src = join(root, 'packages', pkg, 'src')
  const dist = join(root, 'packages', pkg, 'dist')
  if (!existsSync(src) || !existsSync(dist)) continue
  for (const file of walk(src)) {
    cpSync(file, join(dist, relative(src, file)))
    copied++
  }
}
console.log(`copy-assets: ${copied} file(s) into dist/`)
