/**
 * Resolves once the page has painted its next frame (a frame, then the task after it), or at
 * once on a timer where there are no frames (a hidden tab, no DOM).
 *
 * @example await afterNextPaint() // what was rendered before is on screen
 */
export function afterNextPaint(): Promise<void> {
  return new Promise((resolve) => {
    if (typeof requestAnimationFrame !== 'function' || typeof document === 'undefined') {
      setTimeout(resolve, 0)
      return
    }
    // A hidden tab gets no frames: the timer answers for it.
    const timer = setTimeout(resolve, document.visibilityState === 'visible' ? 200 : 0)
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(timer)
        resolve()
      }, 0),
    )
  })
}
