import type { Roost } from '@roost/client'
import { createContext, type ReactNode, useContext } from 'react'
import type { ProfileSource } from './profile-source'

/** What `<RoostProvider>` hands down: the client and, optionally, where profiles come from. */
export interface RoostContextValue {
  /** The client given to `<RoostProvider roost>`, or undefined outside one. */
  roost: Roost | undefined
  /** The profile source given to `<RoostProvider profiles>`, or undefined. */
  profiles: ProfileSource | undefined
}

/**
 * The React context behind `<RoostProvider>` and the hooks. Apps use `RoostProvider` and
 * `useRoost`; read the context directly only to write a hook of your own that tolerates a missing
 * client.
 *
 * @example
 * const { roost } = useContext(RoostContext) // undefined outside a provider, no throw
 */
export const RoostContext = createContext<RoostContextValue>({ roost: undefined, profiles: undefined })

/** Thrown by a hook that needs a value `<RoostProvider>` was not given (or no provider at all). */
export class MissingProviderError extends Error {
  /** Always `'missing-provider'`, for `switch` on an error's code. */
  readonly code = 'missing-provider'
  /** Always `'MissingProviderError'`. */
  override readonly name = 'MissingProviderError'
  constructor(
    /** The hook that was called. */
    readonly hook: string,
    /** The `<RoostProvider>` prop it needs. */
    readonly prop: 'roost' | 'profiles',
  ) {
    super(`${hook} needs <RoostProvider ${prop}={…}> above it`)
  }
}

/**
 * The props of {@link RoostProvider}.
 *
 * @example
 * const props: RoostProviderProps = { roost, children: <App /> }
 */
export interface RoostProviderProps {
  /** The client from `createRoost`, for `useRoost`, `useGroups`, `useGroup(key)` and `useUnread`. */
  roost?: Roost
  /** Where `useProfile` reads names and pictures (kind 0), when the app keeps them. */
  profiles?: ProfileSource
  /** The part of the app whose hooks see this client. */
  children?: ReactNode
}

/**
 * Makes a Roost client (and a profile source) available to the hooks below it. The client's
 * lifetime stays yours: create it before, `close()` it after.
 *
 * @example
 * const roost = createRoost({ signer, relays: ['wss://groups.example.com'] })
 * createRoot(el).render(<RoostProvider roost={roost}><App /></RoostProvider>)
 */
export function RoostProvider(props: RoostProviderProps): ReactNode {
  const { roost, profiles, children } = props
  return <RoostContext.Provider value={{ roost, profiles }}>{children}</RoostContext.Provider>
}

/**
 * The client given to the nearest `<RoostProvider>`.
 *
 * @throws {MissingProviderError} when there is none.
 */
export function useRoost(): Roost {
  const { roost } = useContext(RoostContext)
  if (!roost) throw new MissingProviderError('useRoost', 'roost')
  return roost
}
