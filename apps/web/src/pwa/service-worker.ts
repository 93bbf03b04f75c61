/**
 * The service worker (`/sw.js`): caches the app shell so the installed app opens offline. Built
 * as its own bundle; the build puts the shell's file list in place of the placeholder.
 */
import { cacheName, PRECACHE_PLACEHOLDER, SHELL_PAGE, strategyFor } from './cache-rules'

interface ExtendableEvent extends Event {
  waitUntil(p: Promise<unknown>): void
}
interface FetchEvent extends ExtendableEvent {
  request: Request
  respondWith(r: Promise<Response>): void
}
interface WorkerScope {
  location: Location
  skipWaiting(): Promise<void>
  clients: { claim(): Promise<void> }
  addEventListener(type: 'install' | 'activate', fn: (e: ExtendableEvent) => void): void
  addEventListener(type: 'fetch', fn: (e: FetchEvent) => void): void
}

const scope = self as unknown as WorkerScope
const PRECACHE: string[] = JSON.parse(PRECACHE_PLACEHOLDER)
const CACHE = cacheName(PRECACHE)
const precached = new Set(PRECACHE)

scope.addEventListener('install', (e) => {
  e.waitUntil(
    caches
      .open(CACHE)
      .then((c) => c.addAll(PRECACHE))
      .then(() => scope.skipWaiting()),
  )
})

scope.addEventListener('activate', (e) => {
  e.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(
          keys.filter((k) => k.startsWith('roost-shell-') && k !== CACHE).map((k) => caches.delete(k)),
        ),
      )
      .then(() => scope.clients.claim()),
  )
})

async function page(request: Request): Promise<Response> {
  try {
    const fresh = await fetch(request)
    // Only the app's page is the shell: a file of the site opened as a page (the manifest, an
    // upload) must not take its place offline.
    if (fresh.ok && fresh.headers.get('content-type')?.startsWith('text/html')) {
      const copy = fresh.clone()
      void caches.open(CACHE).then((c) => c.put(SHELL_PAGE, copy))
    }
    return fresh
  } catch {
    const cached = await caches.match(SHELL_PAGE, { cacheName: CACHE })
    if (cached) return cached
    throw new Error('offline and no cached shell')
  }
}

async function shellFile(request: Request): Promise<Response> {
  const cached = await caches.match(request, { cacheName: CACHE })
  return cached ?? fetch(request)
}

scope.addEventListener('fetch', (e) => {
  const r = e.request
  const how = strategyFor(
    { method: r.method, url: r.url, mode: r.mode, accept: r.headers.get('accept') },
    scope.location.origin,
    precached,
  )
  if (how === 'page') e.respondWith(page(r))
  else if (how === 'shell-file') e.respondWith(shellFile(r))
})
