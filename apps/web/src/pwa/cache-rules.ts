/**
 * What the service worker caches and how it answers, as pure functions (the worker itself only
 * wires them to the Cache API). The app shell is precached at install; pages are network-first
 * with the cached shell as the fallback, so the installed app opens offline; the shell's files
 * are cache-first (their names carry a content hash). Everything else (NIP-11 documents, media,
 * other origins) is left to the network: the groups and messages come from IndexedDB.
 */

/** The placeholder the build replaces with the JSON list of shell files. */
export const PRECACHE_PLACEHOLDER = '__ROOST_PRECACHE__'

/** The key the shell page is stored under. */
export const SHELL_PAGE = '/index.html'

/** The files of a build worth caching: everything but source maps and the worker itself. */
export function precacheList(files: readonly string[]): string[] {
  const out = new Set<string>(['/', SHELL_PAGE])
  for (const f of files) {
    const path = `/${f.replace(/^\/+/, '')}`
    if (path.endsWith('.map') || path === '/sw.js' || path.includes('/.')) continue
    out.add(path === '/index.html' ? SHELL_PAGE : path)
  }
  out.delete('/')
  return [...out].sort()
}

/** A cache name that changes whenever the list does, so a new build replaces the old shell. */
export function cacheName(list: readonly string[]): string {
  let h = 2166136261
  for (const ch of list.join('\n')) {
    h ^= ch.codePointAt(0)!
    h = Math.imul(h, 16777619) >>> 0
  }
  return `roost-shell-${h.toString(16).padStart(8, '0')}`
}

export type Strategy = 'page' | 'shell-file' | 'network'

/** How the worker answers one request. */
export function strategyFor(
  request: { method: string; url: string; mode: string; accept?: string | null },
  origin: string,
  precached: ReadonlySet<string>,
): Strategy {
  if (request.method !== 'GET') return 'network'
  let url: URL
  try {
    url = new URL(request.url)
  } catch {
    return 'network'
  }
  if (url.origin !== origin) return 'network'
  // NIP-11 asks the relay's own URL with this Accept header: never the shell.
  if (request.accept?.includes('application/nostr+json')) return 'network'
  if (request.mode === 'navigate') return 'page'
  return precached.has(url.pathname) ? 'shell-file' : 'network'
}
