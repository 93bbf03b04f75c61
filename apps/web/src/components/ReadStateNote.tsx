import { useAppSnapshot } from '../hooks'

/**
 * Says so when this window cannot keep read state (no IndexedDB, as in private browsing): what
 * the user's other devices read shows here, but what is read here is neither kept nor synced.
 */
export function ReadStateNote() {
  const kept = useAppSnapshot().readStateKept
  if (kept) return null
  return (
    <p className="notice warn" role="note" data-testid="read-state-not-kept">
      This window cannot store data (private browsing?), so what you read here will not be kept after you
      close it, nor synced to your other devices. What you read on them still shows here.
    </p>
  )
}
