import { type RefObject, useEffect, useSyncExternalStore } from 'react'

import { PHONE_QUERY } from './phone-query'

export { PHONE_QUERY }

/** One list for the page: every row of a timeline asks, and a new list per ask is not free. */
let phoneList: MediaQueryList | undefined
const phone = () => {
  phoneList ??= window.matchMedia(PHONE_QUERY)
  return phoneList
}

function subscribePhone(fn: () => void) {
  const list = phone()
  list.addEventListener('change', fn)
  return () => list.removeEventListener('change', fn)
}

/** True while the window is phone-sized; follows rotation and resizing. */
export function usePhone(): boolean {
  return useSyncExternalStore(
    subscribePhone,
    () => phone().matches,
    () => false,
  )
}

/**
 * Keeps `--app-height` at the visual viewport's height, so the composer stays above an
 * on-screen keyboard on browsers that overlay it instead of resizing the page.
 */
export function useVisualViewportHeight(): void {
  useEffect(() => {
    const vv = window.visualViewport
    if (!vv) return
    const root = document.documentElement
    const set = () => root.style.setProperty('--app-height', `${Math.round(vv.height)}px`)
    set()
    vv.addEventListener('resize', set)
    return () => {
      vv.removeEventListener('resize', set)
      root.style.removeProperty('--app-height')
    }
  }, [])
}

/**
 * A swipe from the left edge of `area` to the right calls `onOpen`; a swipe to the left on
 * `drawer` calls `onClose`. Vertical scrolling is left alone.
 */
export function useEdgeSwipe(
  area: RefObject<HTMLElement | null>,
  drawer: RefObject<HTMLElement | null>,
  opts: { enabled: boolean; open: boolean; onOpen: () => void; onClose: () => void },
): void {
  const { enabled, open, onOpen, onClose } = opts
  useEffect(() => {
    const el = area.current
    if (!el || !enabled) return
    let start: { x: number; y: number; fromEdge: boolean; inDrawer: boolean } | undefined
    const down = (e: TouchEvent) => {
      const t = e.touches[0]
      if (!t || e.touches.length > 1) return
      start = {
        x: t.clientX,
        y: t.clientY,
        fromEdge: t.clientX <= 28,
        inDrawer: drawer.current?.contains(e.target as Node) ?? false,
      }
    }
    const up = (e: TouchEvent) => {
      const t = e.changedTouches[0]
      const s = start
      start = undefined
      if (!t || !s) return
      const dx = t.clientX - s.x
      const dy = Math.abs(t.clientY - s.y)
      if (Math.abs(dx) < 60 || dy > Math.abs(dx)) return
      if (!open && s.fromEdge && dx > 0) onOpen()
      else if (open && dx < 0) onClose()
    }
    el.addEventListener('touchstart', down, { passive: true })
    el.addEventListener('touchend', up, { passive: true })
    return () => {
      el.removeEventListener('touchstart', down)
      el.removeEventListener('touchend', up)
    }
  }, [area, drawer, enabled, open, onOpen, onClose])
}
