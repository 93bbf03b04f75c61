/**
 * The app's side of the pre-paint (`lib/prepaint.ts`): when the page is left, what the user sees
 * of the open group is written down; on the next load the app takes over from the copy the
 * page's first script put on screen (`prepaint/boot.ts`) as soon as its own timeline has painted.
 */
import { PHONE_QUERY } from '../lib/phone-query'
import {
  AT_END_PX,
  isGroupUrl,
  PREPAINT_ID,
  PREPAINT_KEY,
  type PrepaintRecord,
  SCROLL_ATTR,
  serializeRecord,
  widthClass,
} from '../lib/prepaint'
import type { AppApi } from '../model/api'

/** The app has painted its own view of the group, or something the copy does not show. */
const TAKEN_OVER = '[role="log"] article[data-kind], [role="dialog"], [role="alertdialog"], dialog'
/**
 * What the copy leaves out: what would not be open again after a reload, and each message's
 * toolbar, shown only on hover or focus (half the markup, in icons).
 */
const PASSING =
  'dialog, [role="dialog"], [role="alertdialog"], [role="menu"], [role="tooltip"], [popover], .msg-actions'
/** What a reload does not open again, and the app would lay out without: no view is kept of it. */
const NOT_REOPENED = '.shell.drawer-open, aside.side'
/** The app's wait for its own view is at most this long; then the copy goes regardless. */
const TAKE_OVER_MS = 3_000

function storage(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage
  } catch {
    return undefined
  }
}

/** The open group's key, from the address (`#/g/<key>`). */
function openGroup(): string | undefined {
  const m = /^#\/g\/(.+)$/.exec(location.hash)
  if (!m) return undefined
  try {
    return decodeURIComponent(m[1]!)
  } catch {
    return undefined
  }
}

/**
 * The record of what `#root` shows now, or undefined when it is not a group the user is in with
 * its messages on screen.
 */
export function capturePrepaint(app: AppApi): PrepaintRecord | undefined {
  const root = document.getElementById('root')
  const key = openGroup()
  // While the copy is still up the app has not painted: the record kept is still the right one.
  if (!root || !key || document.getElementById(PREPAINT_ID)) return undefined
  const url = location.pathname + location.search + location.hash
  if (!isGroupUrl(url)) return undefined
  const snap = app.snapshot()
  const group = snap.groups.find((g) => g.key === key)
  if (!group || (group.access.status !== 'member' && group.access.status !== 'unknown')) return undefined
  if (root.querySelector(NOT_REOPENED)) return undefined
  const log = root.querySelector<HTMLElement>('[role="log"]')
  if (!log?.querySelector('article[data-kind]')) return undefined
  // The app opens a group at its end (or its "new messages" line): a copy of older messages,
  // scrolled up to, would jump the moment the app takes over.
  if (log.scrollHeight - log.clientHeight - log.scrollTop >= AT_END_PX) return undefined
  const copy = root.cloneNode(true) as HTMLElement
  // Scroll positions, marked on the copy's twin of each scrolled element; the timeline's rows off
  // screen (kept ready by the virtualizer) are left out, positioned as they are, they move nothing.
  const view = log.getBoundingClientRect()
  const offScreen: Element[] = []
  const live = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT)
  const twin = document.createTreeWalker(copy, NodeFilter.SHOW_ELEMENT)
  for (let a = live.nextNode(), b = twin.nextNode(); a && b; a = live.nextNode(), b = twin.nextNode()) {
    const el = a as HTMLElement
    if (el.classList.contains('timeline-row')) {
      const r = el.getBoundingClientRect()
      if (r.bottom <= view.top || r.top >= view.bottom) offScreen.push(b as Element)
    } else if (el.scrollHeight > el.clientHeight + 1 && el.clientHeight > 1) {
      const fromEnd = Math.max(0, Math.round(el.scrollHeight - el.clientHeight - el.scrollTop))
      ;(b as HTMLElement).setAttribute(SCROLL_ATTR, `${Math.round(el.scrollTop)},${fromEnd}`)
    }
  }
  for (const el of offScreen) el.remove()
  for (const el of copy.querySelectorAll(PASSING)) el.remove()
  return {
    v: 1,
    url,
    pubkey: snap.session.pubkey,
    width: widthClass(innerWidth, matchMedia(PHONE_QUERY).matches),
    html: copy.innerHTML,
  }
}

/** Writes down (or, when there is nothing to show, forgets) the view for the next load. */
export function savePrepaint(app: AppApi): void {
  const s = storage()
  if (!s) return
  try {
    const record = capturePrepaint(app)
    const raw = record && serializeRecord(record)
    if (raw) s.setItem(PREPAINT_KEY, raw)
    else if (!document.getElementById(PREPAINT_ID)) s.removeItem(PREPAINT_KEY)
  } catch {
    // A full or refused storage: the next load paints as it always did.
    s.removeItem(PREPAINT_KEY)
  }
}

/** Keeps the view when the page is hidden or left; returns the stop function. */
export function keepPrepaint(app: AppApi): () => void {
  const onHide = () => {
    if (document.visibilityState === 'hidden') savePrepaint(app)
  }
  const onPageHide = () => savePrepaint(app)
  document.addEventListener('visibilitychange', onHide)
  window.addEventListener('pagehide', onPageHide)
  return () => {
    document.removeEventListener('visibilitychange', onHide)
    window.removeEventListener('pagehide', onPageHide)
  }
}

/** Takes the copy off the screen, if it is there, and hands the app its clicks back. */
export function dropPrepaint(): void {
  const box = document.getElementById(PREPAINT_ID)
  if (!box) return
  box.remove()
  const root = document.getElementById('root')
  if (root) root.inert = false
}

/**
 * Removes the copy the moment the app has painted its own timeline's first message (in the same
 * frame, so the screen never shows neither), or routes elsewhere, or opens a dialog, or after
 * {@link TAKE_OVER_MS} at most.
 */
export function watchPrepaint(): void {
  const box = document.getElementById(PREPAINT_ID)
  const root = document.getElementById('root')
  if (!box || !root) return
  const url = location.href
  const done = () => {
    observer.disconnect()
    clearTimeout(timer)
    dropPrepaint()
  }
  const check = () => {
    if (!box.isConnected) {
      observer.disconnect()
      clearTimeout(timer)
    } else if (location.href !== url || root.querySelector(TAKEN_OVER)) done()
  }
  const observer = new MutationObserver(check)
  observer.observe(root, { childList: true, subtree: true })
  const timer = setTimeout(done, TAKE_OVER_MS)
  check()
}
