import { useEffect, useState } from 'react'
import type { GroupHandle } from '../model/api'

/** A message to bring into view: `n` changes each time a search result is chosen. */
export interface RevealRequest {
  id: string
  n: number
}

/** Older pages loaded at most while looking for a message (100 messages each). */
const MAX_PAGES = 40

/**
 * Loads older pages of `handle` until the message of `request` is in the timeline (or the
 * history ends); answers the request once the message is there, `missing` when it never came.
 */
export function useRevealMessage(
  handle: GroupHandle,
  request: RevealRequest | undefined,
): { request?: RevealRequest; missing: boolean } {
  const [state, setState] = useState<{ request?: RevealRequest; missing: boolean }>({ missing: false })
  useEffect(() => {
    if (!request) return
    let stopped = false
    setState({ missing: false })
    void (async () => {
      for (let page = 0; !stopped; page++) {
        if (handle.message(request.id)) {
          setState({ request, missing: false })
          return
        }
        const snap = handle.snapshot()
        // An unanswered relay would only be asked, and waited for, again.
        if (page >= MAX_PAGES || !snap.hasOlder || snap.olderUnreachable) break
        await handle.loadOlder()
      }
      if (!stopped) setState({ missing: true })
    })()
    return () => {
      stopped = true
    }
  }, [handle, request])
  return state
}

const HEX64 = /^[0-9a-f]{64}$/

/** Marks the chosen message in the timeline, however often the list re-mounts its row. */
export function SearchHighlight(props: { id?: string }) {
  if (!props.id || !HEX64.test(props.id)) return null
  return (
    <style>{`.timeline-wrap article.msg[data-id="${props.id}"] { box-shadow: inset 4px 0 0 var(--accent, #4f6bed); animation: search-hit-flash 2s ease-out both; }`}</style>
  )
}
