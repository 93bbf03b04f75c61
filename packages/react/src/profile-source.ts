/**
 * Anything that keeps people's profiles and says when they change: `profile(pubkey)` returns the
 * same object until that person's profile changes (it may also start fetching it), and
 * `subscribe` calls back on changes.
 */
export interface ProfileSource<P = unknown> {
  /** Calls `listener` whenever any profile may have changed; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void
  /** The profile known for `pubkey` now (the same object until it changes), or undefined. */
  profile(pubkey: string): P | undefined
}
