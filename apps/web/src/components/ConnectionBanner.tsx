import type { ConnectionState } from '../model/connection'

/**
 * A strip above the app while the browser is offline or a relay cannot be reached, kept until
 * the connection is back, then "Back online" for a moment. Cached groups and messages stay usable.
 */
export function ConnectionBanner(props: { state: ConnectionState }) {
  const { status, back, down } = props.state
  const text =
    status === 'offline'
      ? 'You are offline. Showing saved messages; sending is off until the connection is back.'
      : status === 'unreachable'
        ? `Cannot reach ${down.length === 1 ? down[0] : `${down.length} relays`}. Retrying…`
        : back
          ? 'Back online.'
          : undefined
  return (
    <div
      className={text ? `conn-banner ${back && status === 'online' ? 'back' : 'down'}` : 'conn-banner idle'}
      role="status"
      data-testid="connection"
      data-status={status}
    >
      {text ?? null}
    </div>
  )
}
