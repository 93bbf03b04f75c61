/**
 * The page's first script, a classic one built on its own (`vite.config.ts`) and loaded before
 * the app's bundle: shows the pre-paint of the group this address opens, when this device kept
 * one for this account and this width (`lib/prepaint.ts`). It sits over `#root`, inert and hidden
 * from assistive technology, until the app has painted the same view (`prepaint/keep.ts`); the
 * app under it is inert meanwhile.
 */
import { PHONE_QUERY } from '../lib/phone-query'
import {
  AT_END_PX,
  PREPAINT_ID,
  PREPAINT_KEY,
  parseRecord,
  recordMatches,
  SCROLL_ATTR,
  sanitizeHtml,
  signedInAccount,
  widthClass,
} from '../lib/prepaint'

/** However the app fares, the copy is gone after this long. */
const LONGEST_MS = 10_000

function show(): void {
  const record = parseRecord(localStorage.getItem(PREPAINT_KEY))
  const root = document.getElementById('root')
  if (!record || !root || document.getElementById(PREPAINT_ID)) return
  // Without the app's stylesheet (the dev server adds it from script) the copy would be unstyled.
  if (!document.querySelector('link[rel="stylesheet"]')) return
  const now = {
    url: location.pathname + location.search + location.hash,
    pubkey: signedInAccount(localStorage),
    width: widthClass(innerWidth, matchMedia(PHONE_QUERY).matches),
  }
  if (!recordMatches(record, now)) return
  const box = document.createElement('div')
  box.id = PREPAINT_ID
  box.inert = true
  box.setAttribute('aria-hidden', 'true')
  box.append(sanitizeHtml(document, record.html, location.href))
  root.after(box)
  // Clicks on the copy must not land on the app below it, which shows something else meanwhile.
  root.inert = true
  for (const el of box.querySelectorAll<HTMLElement>(`[${SCROLL_ATTR}]`)) {
    const [top = 0, fromEnd = 0] = (el.getAttribute(SCROLL_ATTR) ?? '').split(',').map(Number)
    // At the end it stays at the end (the window may be a little taller or shorter).
    el.scrollTop = fromEnd < AT_END_PX ? el.scrollHeight : top
  }
  const drop = () => {
    if (!box.isConnected) return
    box.remove()
    root.inert = false
  }
  addEventListener('hashchange', drop, { once: true })
  addEventListener('popstate', drop, { once: true })
  setTimeout(drop, LONGEST_MS)
}

try {
  show()
} catch {
  // No storage, or a record this script cannot read: the app paints as it always did.
}
