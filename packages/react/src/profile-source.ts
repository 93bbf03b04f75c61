/**
 * Anything that keeps people's profiles and says when they change: `profile(pubkey)` returns the
 * same object until that person's profile changes (it may also start fetching it), and
 * `subscribe` calls back on changes.
 */
export interface ProfileSource<P = unknown> {
  subscribe(listener: () => void): () => void
  profile(pubkey: string): P | undefined
}
