import { useContext, useEffect, useRef, useSyncExternalStore } from 'react'
import { AppContext } from '../hooks'
import type { ConnectionStatus } from '../model/connection'

const noSubscribe = () => () => undefined

/**
 * Calls `fn` when the app's connection comes back (the browser is online and the groups'
 * relays are reachable again), so an error shown because the app was offline can go away then
 * rather than at the next action. Re-renders only when the connection status changes.
 */
export function useOnlineAgain(fn: () => void): void {
  const app = useContext(AppContext)
  const status = useSyncExternalStore<ConnectionStatus>(
    app ? app.subscribe.bind(app) : noSubscribe,
    () => app?.snapshot().connection.status ?? 'online',
  )
  const latest = useRef(fn)
  latest.current = fn
  const previous = useRef(status)
  useEffect(() => {
    const was = previous.current
    previous.current = status
    if (status === 'online' && was !== 'online') latest.current()
  }, [status])
}
