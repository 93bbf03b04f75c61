/**
 * Builds the client with Vite when `dist/` is missing or older than its sources (the app and
 * the workspace packages it bundles), so `npm start` and the e2e suite always serve what is
 * in the tree.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const webRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..')
export const repoRoot = resolve(webRoot, '../..')
export const distDir = join(webRoot, 'dist')

const SOURCES = [
  join(webRoot, 'src'),
  join(webRoot, 'public'),
  join(webRoot, 'index.html'),
  join(webRoot, 'vite.config.ts'),
  join(repoRoot, 'packages/client/src'),
  join(repoRoot, 'packages/nip29/src'),
  join(repoRoot, 'packages/read-state/src'),
  join(repoRoot, 'packages/react/src'),
]

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)))
  return newest
}

/** True when `dist/index.html` is missing or older than any source file. */
export function isStale(): boolean {
  const index = join(distDir, 'index.html')
  if (!existsSync(index)) return true
  const built = statSync(index).mtimeMs
  return SOURCES.some((s) => newestMtime(s) > built)
}

/** Runs `vite build` in-process when needed; returns whether it built. */
export async function ensureBuilt(
  opts: { force?: boolean; log?: (line: string) => void } = {},
): Promise<boolean> {
  if (!opts.force && !isStale()) return false
  opts.log?.('Building the web client…')
  const { build } = await import('vite')
  // Vite takes NODE_ENV from the environment when it is set; under vitest it is `test`, which
  // would bundle React's development build. The client is always built for production.
  const nodeEnv = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  try {
    await build({
      root: webRoot,
      configFile: join(webRoot, 'vite.config.ts'),
      logLevel: 'warn',
      mode: 'production',
    })
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV
    else process.env.NODE_ENV = nodeEnv
  }
  return true
}
