import { useEffect, useRef, useState } from 'react'
import type { GroupHandle } from '../model/api'
import type { GroupDetail } from '../model/types'
import './call-button.css'

type CallState =
  | { phase: 'idle' }
  | { phase: 'token' }
  | { phase: 'connecting'; url: string }
  | { phase: 'joined'; url: string }
  | { phase: 'failed'; message: string }

/** What the button needs of a LiveKit room (livekit-client's `Room`). */
interface CallRoom {
  connect(url: string, token: string): Promise<void>
  disconnect(): Promise<void>
}

/**
 * "Join call" for a group whose relay advertises NIP-29 audio/video (the `livekit` flag): asks the
 * relay for a token (NIP-98) and connects with `livekit-client`, loaded only when a call starts.
 */
export function CallButton(props: { handle: GroupHandle; detail: GroupDetail }) {
  const [state, setState] = useState<CallState>({ phase: 'idle' })
  const room = useRef<CallRoom | undefined>(undefined)

  // Leaving the group view ends the call (the view mounts one button per group key).
  useEffect(
    () => () => {
      void room.current?.disconnect().catch(() => undefined)
      room.current = undefined
    },
    [],
  )

  if (!props.detail.flags.livekit || props.detail.access.status !== 'member') return null

  async function join() {
    setState({ phase: 'token' })
    const answer = await props.handle.call()
    if (!answer.ok) {
      setState({ phase: 'failed', message: answer.message })
      return
    }
    setState({ phase: 'connecting', url: answer.url })
    try {
      const { Room } = await import('livekit-client')
      const r: CallRoom = new Room()
      room.current = r
      await r.connect(answer.url, answer.token)
      setState({ phase: 'joined', url: answer.url })
    } catch (err) {
      room.current = undefined
      const reason = err instanceof Error ? err.message : String(err)
      setState({ phase: 'failed', message: `Could not connect to the call at ${answer.url}: ${reason}` })
    }
  }

  async function leave() {
    const r = room.current
    room.current = undefined
    setState({ phase: 'idle' })
    await r?.disconnect().catch(() => undefined)
  }

  const busy = state.phase === 'token' || state.phase === 'connecting'
  return (
    <div className="call-button">
      {state.phase === 'joined' ? (
        <button type="button" className="btn danger" onClick={() => void leave()}>
          Leave call
        </button>
      ) : (
        <button type="button" className="btn" disabled={busy} onClick={() => void join()}>
          {busy ? 'Joining call…' : 'Join call'}
        </button>
      )}
      <span className="call-status" role="status" data-testid="call-status" title={statusText(state)}>
        {statusText(state)}
      </span>
    </div>
  )
}

function statusText(state: CallState): string {
  switch (state.phase) {
    case 'token':
      return 'Asking the relay for a call token…'
    case 'connecting':
      return `Connecting to ${state.url}…`
    case 'joined':
      return 'In the call'
    case 'failed':
      return state.message
    default:
      return ''
  }
}
