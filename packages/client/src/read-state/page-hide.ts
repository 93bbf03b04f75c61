/**
 * Calls `flush` on `pagehide` and when the page becomes hidden (decision g), where a page exists.
 * Returns the function that detaches the listeners, or `undefined` outside a browser.
 */
export function flushOnPageHide(flush: () => void): (() => void) | undefined {
  const doc = (globalThis as { document?: Document }).document
  const win = globalThis as unknown as { addEventListener?: Window['addEventListener'] }
  if (!doc || typeof win.addEventListener !== 'function') return undefined
  const onHide = () => flush()
  const onVisibility = () => {
    if (doc.visibilityState === 'hidden') flush()
  }
  win.addEventListener('pagehide', onHide)
  doc.addEventListener('visibilitychange', onVisibility)
  return () => {
    ;(globalThis as unknown as Window).removeEventListener('pagehide', onHide)
    doc.removeEventListener('visibilitychange', onVisibility)
  }
}
