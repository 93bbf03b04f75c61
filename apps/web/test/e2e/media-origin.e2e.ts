/**
 * Uploads never run as the app: Blossom is served from an origin of its own, so a member's
 * JavaScript upload can neither run as a script of the app's page nor register as its service
 * worker, while images uploaded in the app still load under the page's real CSP.
 */
import { blossomServerFor, fetchRelayInfo, LocalSigner, uploadBlob } from '@roost/client'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import {
  joinByCode,
  messageIn,
  newPerson,
  type Person,
  type Stack,
  screenshotsOnFailure,
  send,
  signUp,
  startStack,
} from './harness'
import { png } from './media-files'

let stack: Stack
let ada: Person
let bob: Person

beforeAll(async () => {
  stack = await startStack()
  // The page's own CSP applies to both: no bypass.
  ada = await newPerson(stack)
  bob = await newPerson(stack)
  await signUp(stack, ada, 'Ada')
  await signUp(stack, bob, 'Bob')
  const groupId = await stack.relay.createGroup({
    name: 'Media',
    admins: [ada.pubkey!],
    members: [bob.pubkey!],
  })
  await joinByCode(ada, `${stack.relay.url}'${groupId}`)
  await joinByCode(bob, `${stack.relay.url}'${groupId}`)
})
afterAll(async () => {
  await stack?.close()
})
beforeEach(() => screenshotsOnFailure(() => [ada, bob]))

/** Uploads `text` as Ada, the way any member's client can, to the Blossom the relay names. */
async function uploadAsAda(text: string, type: string): Promise<{ url: string; x: string }> {
  const info = await fetchRelayInfo(stack.relay.url, fetch, 5000)
  const media = await uploadBlob(new TextEncoder().encode(text), {
    server: blossomServerFor(stack.relay.url, info),
    signer: LocalSigner.fromSecret(ada.nsec!),
    type,
  })
  return { url: media.url, x: media.x! }
}

describe('uploads never run as the app', () => {
  test('an image uploaded in the app loads for the other person from the media origin, under the page’s CSP', async () => {
    await ada.page
      .locator('input[aria-label="Attach files"]')
      .setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: png(24, 12, 5) })
    await ada.page.getByRole('list', { name: 'Attachments' }).getByText('Ready').waitFor()
    await send(ada, 'a dot')
    const img = messageIn(bob, 'a dot').locator('img[alt="Image"]')
    await img.waitFor()
    expect(await img.getAttribute('src')).toMatch(new RegExp(`^${stack.relay.mediaUrl}/[0-9a-f]{64}\\.png$`))
    expect(stack.relay.mediaUrl).not.toBe(stack.base)
    // Loaded at once (the relay's own media server is the user's), through the page's img-src.
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(24)
    expect(await messageIn(bob, 'a dot').getByTestId('media-gated').count()).toBe(0)
    expect(bob.errors).toEqual([])
  })

  test('an uploaded JavaScript blob runs as no script and registers as no service worker on the app page', async () => {
    const { page } = ada
    // The app's own worker is in charge first.
    await page.evaluate(() => navigator.serviceWorker.ready)
    await expect
      .poll(() => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL))
      .toMatch(/\/sw\.js$/)

    const script = await uploadAsAda("window.__owned = 'script'", 'application/javascript')
    // As a service worker it would answer every request of the app; as a plain worker it says so.
    const worker = await uploadAsAda(
      "self.addEventListener('fetch', (e) => e.respondWith(new Response('owned')))\n" +
        "if (!('registration' in self)) postMessage('owned')",
      'text/javascript',
    )
    // Every place the blob could be named from: the media origin, and the app's own origin.
    const sources = [script.url, `/${script.x}`, `/${script.x}.js`]
    for (const src of sources) {
      const outcome = await page.evaluate(
        (s) =>
          new Promise<string>((resolve) => {
            const el = document.createElement('script')
            el.src = s
            el.onload = () =>
              resolve(String((window as { __owned?: string }).__owned ?? 'loaded, did not run'))
            el.onerror = () => resolve('blocked')
            document.head.append(el)
          }),
        src,
      )
      expect([src, outcome]).toEqual([src, 'blocked'])
      // As a string: the test's own bundler would rewrite an import() written here.
      const imported = await page.evaluate(
        `import(${JSON.stringify(src)}).then(() => 'ran', () => 'blocked')`,
      )
      expect([src, imported]).toEqual([src, 'blocked'])
    }
    expect(await page.evaluate(() => (window as { __owned?: string }).__owned)).toBeUndefined()

    for (const url of [`/${worker.x}`, `/${worker.x}.js`, worker.url]) {
      const registered = await page.evaluate(
        (u) =>
          navigator.serviceWorker.register(u, { scope: '/' }).then(
            (r) => `registered ${(r.installing ?? r.waiting ?? r.active)?.scriptURL}`,
            (e: Error) => `refused (${e.name})`,
          ),
        url,
      )
      expect([url, registered]).toEqual([url, expect.stringMatching(/^refused/)])
      const dedicated = await page.evaluate(
        (u) =>
          new Promise<string>((resolve) => {
            try {
              const w = new Worker(u)
              w.onerror = () => resolve('blocked')
              w.onmessage = () => resolve('ran')
              setTimeout(() => resolve('no answer'), 2000)
            } catch {
              resolve('blocked')
            }
          }),
        url,
      )
      expect([url, dedicated]).toEqual([url, 'blocked'])
    }
    const workers = await page.evaluate(async () =>
      (await navigator.serviceWorker.getRegistrations()).map((r) => r.active?.scriptURL ?? ''),
    )
    expect(workers.map((w) => new URL(w).pathname)).toEqual(['/sw.js'])
    // After a reload the app is still the app, served by its own worker (its own sidebar, not the
    // copy of the last view that can show beside it for a moment).
    await page.reload()
    await page.locator('#root aside.sidebar').waitFor({ state: 'attached' })
    expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toMatch(/\/sw\.js$/)
  })

  test('the media origin itself refuses a script or style load, even on a page with no CSP at all', async () => {
    const script = await uploadAsAda("window.__owned = 'media-origin'", 'application/javascript')
    const style = await uploadAsAda('body { background: rgb(255, 0, 0) !important }', 'text/css')
    const open = await newPerson(stack, { bypassCSP: true })
    await open.page.goto(stack.base)
    const ran = await open.page.evaluate(
      (s) =>
        new Promise<string>((resolve) => {
          const el = document.createElement('script')
          el.src = s
          el.onload = () => resolve(String((window as { __owned?: string }).__owned ?? 'loaded, did not run'))
          el.onerror = () => resolve('blocked')
          document.head.append(el)
        }),
      script.url,
    )
    expect(ran).toBe('blocked')
    const styled = await open.page.evaluate(
      (href) =>
        new Promise<string>((resolve) => {
          const el = document.createElement('link')
          el.rel = 'stylesheet'
          el.href = href
          el.onload = () => resolve(getComputedStyle(document.body).backgroundColor)
          el.onerror = () => resolve('blocked')
          document.head.append(el)
        }),
      style.url,
    )
    expect(styled).toBe('blocked')
  })
})
