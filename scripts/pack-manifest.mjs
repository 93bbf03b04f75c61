// Runs as each package's `prepack` / `postpack` (npm pack and npm publish both run them).
// `strip` removes the workspace-only `@roost/source` export condition from package.json, which
// points at TypeScript sources for this repository's tests and dev server and means nothing to an
// installed package; `restore` puts the original file back. The original waits beside it in
// `package.json.prepack`, so a pack that failed before `postpack` is repaired by the next `strip`.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'

const SOURCE_CONDITION = '@roost/source'
const manifest = 'package.json'
const saved = 'package.json.prepack'

/** The manifest without the source condition in any `exports` entry, nor these pack scripts. */
export function stripSourceCondition(pkg) {
  const exports = Object.fromEntries(
    Object.entries(pkg.exports ?? {}).map(([key, target]) => {
      if (typeof target !== 'object' || target === null) return [key, target]
      const { [SOURCE_CONDITION]: _source, ...rest } = target
      return [key, rest]
    }),
  )
  const { prepack: _prepack, postpack: _postpack, ...scripts } = pkg.scripts ?? {}
  const { scripts: _scripts, ...rest } = pkg
  return Object.keys(scripts).length ? { ...rest, exports, scripts } : { ...rest, exports }
}

const command = process.argv[2]
if (command === 'strip') {
  if (existsSync(saved)) renameSync(saved, manifest)
  const text = readFileSync(manifest, 'utf8')
  writeFileSync(saved, text)
  writeFileSync(manifest, `${JSON.stringify(stripSourceCondition(JSON.parse(text)), null, 2)}\n`)
} else if (command === 'restore') {
  if (existsSync(saved)) renameSync(saved, manifest)
} else if (command !== undefined) {
  console.error(`usage: pack-manifest.mjs strip|restore (got ${command})`)
  process.exit(2)
}
