import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs build script without declarations
import { addJsExtensions } from '../scripts/add-js-extensions.mjs'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function dist(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'roost-dist-'))
  dirs.push(dir)
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true })
    writeFileSync(join(dir, name), text)
  }
  return dir
}

describe('the build step that makes emitted specifiers loadable by Node', () => {
  it('names the file or the folder index each relative specifier means, in .js and .d.ts', () => {
    const dir = dist({
      'index.js': [
        "export * from './errors';",
        "export { a } from './groups';",
        "import './side';",
        "const m = await import('./lazy');",
        "import { x } from 'nostr-tools/pure';",
        "import data from './data.json';",
        "const w = new URL('./worker.ts', import.meta.url);",
      ].join('\n'),
      'index.d.ts': "export * from './errors';\nexport type T = import('./groups').A;\n",
      'errors.js': '',
      'errors.d.ts': '',
      'side.js': '',
      'lazy.js': '',
      'worker.js': '',
      'groups/index.js': "export { a } from '../errors';\n",
      'groups/index.d.ts': '',
    })
    expect(addJsExtensions(dir)).toBe(3)
    expect(readFileSync(join(dir, 'index.js'), 'utf8').split('\n')).toEqual([
      "export * from './errors.js';",
      "export { a } from './groups/index.js';",
      "import './side.js';",
      "const m = await import('./lazy.js');",
      "import { x } from 'nostr-tools/pure';",
      "import data from './data.json';",
      "const w = new URL('./worker.js', import.meta.url);",
    ])
    expect(readFileSync(join(dir, 'index.d.ts'), 'utf8')).toBe(
      "export * from './errors.js';\nexport type T = import('./groups/index.js').A;\n",
    )
    expect(readFileSync(join(dir, 'groups/index.js'), 'utf8')).toBe("export { a } from '../errors.js';\n")
    // Running again changes nothing: rewritten specifiers are left alone.
    expect(addJsExtensions(dir)).toBe(0)
  })

  it('refuses a specifier that names no emitted file instead of shipping a broken import', () => {
    const dir = dist({ 'index.js': "export * from './missing';\n" })
    expect(() => addJsExtensions(dir)).toThrow(/cannot resolve \.\/missing/)
  })
})
