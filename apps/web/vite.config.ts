import { createHash } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import react from '@vitejs/plugin-react'
import { build as bundle } from 'rolldown'
import { defineConfig, type Plugin } from 'vite'
import { sourceResolve } from '../../source-conditions.ts'
import { PRECACHE_PLACEHOLDER, precacheList } from './src/pwa/cache-rules.ts'

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
}

/**
 * Builds `src/pwa/service-worker.ts` as `/sw.js` and writes into it the list of the build's files
 * (hashed bundles, index.html, the public folder), which it precaches as the app shell.
 */
function serviceWorker(): Plugin {
  return {
    name: 'roost-service-worker',
    apply: 'build',
    buildStart() {
      this.emitFile({
        type: 'chunk',
        id: join(import.meta.dirname, 'src/pwa/service-worker.ts'),
        fileName: 'sw.js',
      })
    },
    generateBundle(_options, bundle) {
      const sw = bundle['sw.js']
      if (sw?.type !== 'chunk') throw new Error('the service worker was not built')
      if (sw.imports.length > 0) throw new Error('the service worker must be one self-contained file')
      const list = precacheList([...Object.keys(bundle), ...filesUnder(join(import.meta.dirname, 'public'))])
      const literal = new RegExp(`(["'\`])${PRECACHE_PLACEHOLDER}\\1`)
      if (!literal.test(sw.code)) throw new Error('the service worker has no precache placeholder')
      sw.code = sw.code.replace(literal, JSON.stringify(JSON.stringify(list)))
    },
  }
}

/**
 * Builds `src/prepaint/boot.ts` on its own as one classic script (`assets/prepaint-<hash>.js`,
 * nothing shared with the app's chunks) and loads it from the page's body, before the app's
 * module runs: a same-origin file, so the CSP needs no inline script.
 */
function prepaintScript(): Plugin {
  let fileName: string | undefined
  return {
    name: 'roost-prepaint',
    apply: 'build',
    async buildStart() {
      const out = await bundle({
        input: join(import.meta.dirname, 'src/prepaint/boot.ts'),
        platform: 'browser',
        write: false,
        output: { format: 'iife', minify: true },
      })
      const [chunk, ...rest] = out.output
      if (chunk?.type !== 'chunk' || rest.some((o) => o.type === 'chunk'))
        throw new Error('the pre-paint script must be one self-contained file')
      const hash = createHash('sha256').update(chunk.code).digest('hex').slice(0, 8)
      fileName = `assets/prepaint-${hash}.js`
      this.emitFile({ type: 'asset', fileName, source: chunk.code })
    },
    transformIndexHtml: {
      order: 'post',
      handler: () =>
        fileName ? [{ tag: 'script', attrs: { src: `/${fileName}` }, injectTo: 'body' as const }] : [],
    },
  }
}

/**
 * The chat client. `vite build` writes `dist/`, which the relay serves beside its WebSocket
 * endpoint (`npm start`). In `vite dev`, point the client at a running relay with `?relay=ws://…`.
 */
export default defineConfig({
  ...sourceResolve,
  root: import.meta.dirname,
  plugins: [react(), prepaintScript(), serviceWorker()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
  },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
})
