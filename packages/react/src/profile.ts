import { useCallback, useContext, useSyncExternalStore } from 'react'
import { MissingProviderError, RoostContext } from './context'
import type { ProfileSource } from './profile-source'

/**
 * A person's profile from a `ProfileSource` (the one given to `<RoostProvider profiles>`, or
 * `source`), re-rendering when it changes; `undefined` until it is known.
 *
 * @throws {MissingProviderError} when there is no source.
 * @example
 * function Name({ pubkey }: { pubkey: string }) {
 *   const profile = useProfile<{ name?: string }>(pubkey)
 *   return <span>{profile?.name ?? pubkey.slice(0, 8)}</span>
 * }
 */
export function useProfile<P = unknown>(pubkey: string, source?: ProfileSource<P>): P | undefined {
  const fromContext = useContext(RoostContext).profiles as ProfileSource<P> | undefined
  const profiles = source ?? fromContext
  if (!profiles) throw new MissingProviderError('useProfile', 'profiles')
  const subscribe = useCallback((listener: () => void) => profiles.subscribe(() => listener()), [profiles])
  const read = () => profiles.profile(pubkey)
  return useSyncExternalStore(subscribe, read, read)
}
