import { Window } from 'happy-dom'
import { act, type ReactNode } from 'react'
import { createRoot, type Root } from 'react-dom/client'

/**
 * A DOM for React from happy-dom, while everything else stays Node's own: the tests run a real
 * relay and real clients over `ws`, which a whole browser-like environment would replace.
 */
export const win = new Window({ url: 'http://localhost/' })
Object.assign(globalThis, {
  window: win,
  document: win.document,
  MutationObserver: win.MutationObserver,
  HTMLElement: win.HTMLElement,
  Node: win.Node,
})

/** A React root in a fresh element; errors no boundary caught are collected in `errors`. */
export function mount(node: ReactNode): { el: HTMLElement; root: Root; errors: unknown[]; text(): string } {
  const el = document.createElement('div')
  document.body.append(el)
  const errors: unknown[] = []
  const root = createRoot(el, {
    onUncaughtError: (err) => errors.push(err),
    // Errors an error boundary caught are the test's to assert, not noise in its output.
    onCaughtError: () => {},
  })
  root.render(node)
  return { el, root, errors, text: () => el.textContent ?? '' }
}

/**
 * Resolves when `predicate()` holds, re-checking on every DOM change under `el`; rejects after
 * `ms` with the text it last saw (no sleeping, no polling).
 */
export function untilDom(el: HTMLElement, predicate: () => boolean, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (predicate()) return resolve()
    const observer = new MutationObserver(() => {
      if (!predicate()) return
      observer.disconnect()
      clearTimeout(timer)
      resolve()
    })
    const timer = setTimeout(() => {
      observer.disconnect()
      reject(new Error(`DOM condition not met in ${ms} ms; text: ${el.textContent}`))
    }, ms)
    observer.observe(el, { subtree: true, childList: true, characterData: true, attributes: true })
  })
}

/**
 * Runs `fn` in React's `act` and waits for the renders it caused. The act environment flag is on
 * only meanwhile: the rest of a test awaits renders that relay traffic causes, outside `act`.
 */
export async function inAct(fn: () => unknown): Promise<void> {
  const g = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }
  g.IS_REACT_ACT_ENVIRONMENT = true
  try {
    await act(async () => {
      await fn()
    })
  } finally {
    g.IS_REACT_ACT_ENVIRONMENT = false
  }
}
