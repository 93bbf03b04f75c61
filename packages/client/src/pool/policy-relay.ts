import { AbstractRelay } from 'nostr-tools/abstract-relay'

/** The parts of a WebSocket (browser or `ws`) the relay reaches for when it drops one. */
interface DroppableSocket {
  onmessage: unknown
  onerror: unknown
  close(): void
  /** `ws` only: destroys the TCP socket at once, with no closing handshake. */
  terminate?: () => void
}

/**
 * nostr-tools' relay, with the hooks the connection's policies need: every frame in and out (for
 * the liveness watch), the AUTH challenge (the base class keeps it private and only offers
 * `onauth`, which authenticates unconditionally), and a way to drop the socket at once.
 *
 * @example
 * const relay = new PolicyRelay(url, { verifyEvent, websocketImplementation: WebSocket })
 * relay.onframe = (data) => watch.heard(data)
 * relay.abandon('relay connection lost') // no closing handshake
 */
export class PolicyRelay extends AbstractRelay {
  onchallenge: (() => void) | undefined
  /** Every frame from the relay, before it is handled. */
  onframe: ((data: unknown) => void) | undefined
  /** Every frame we send, before it goes out. */
  onsend: ((message: string) => void) | undefined
  /** Stops whatever watches this socket; called once the socket is gone. */
  unwatch: (() => void) | undefined
  /**
   * True while the relay's own EOSE frame is handled: a subscription's `oneose` then is the
   * relay's answer, not nostr-tools' EOSE timeout (which calls the same `oneose`).
   */
  answeringEose = false

  override _onmessage(ev: MessageEvent): void {
    this.onframe?.(ev.data)
    this.answeringEose = typeof ev.data === 'string' && /^\s*\[\s*"EOSE"/.test(ev.data)
    try {
      super._onmessage(ev)
    } finally {
      this.answeringEose = false
    }
    if (typeof ev.data === 'string' && /^\s*\[\s*"AUTH"/.test(ev.data)) this.onchallenge?.()
  }

  override send(message: string): Promise<void> {
    this.onsend?.(message)
    return super.send(message)
  }

  /** Sends a frame that no `onsend` hook hears (the liveness probe itself). */
  sendQuietly(message: string): void {
    super.send(message).catch(() => {})
  }

  /**
   * Drops the socket now, as if the network had failed: `onclose` runs and everything in flight
   * ends with `reason` (start it with "relay connection" so a publish is sent again once), and
   * the socket is destroyed without a closing handshake, which a dead link would never answer
   * (`ws` waits 30 s for one; a browser's socket is closed and left to time out on its own).
   */
  abandon(reason: string): void {
    const self = this as unknown as { ws?: DroppableSocket; handleHardClose(reason: string): void }
    const ws = self.ws
    if (!this.connected || !ws) return
    self.handleHardClose(reason)
    ws.onmessage = null
    ws.onerror = () => {}
    try {
      if (typeof ws.terminate === 'function') ws.terminate()
      else ws.close()
    } catch {}
  }
}
