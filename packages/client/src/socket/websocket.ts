/**
 * The WebSocket constructor every socket of the client is made with, below both the relay pool
 * and the signers: the global one where the runtime has it (browsers, Node 22+), else `ws`.
 */

/**
 * Loads `ws` (an optional peer dependency) for Node versions without a global WebSocket. The
 * specifier is a variable so that browser bundlers neither resolve nor bundle it: browsers always
 * have `globalThis.WebSocket` and never reach this.
 *
 * @example
 * const { WebSocket } = await importWs()
 */
export async function importWs(): Promise<{ WebSocket: unknown }> {
  const specifier = 'ws'
  try {
    return (await import(/* @vite-ignore */ /* webpackIgnore: true */ specifier)) as { WebSocket: unknown }
  } catch (err) {
    throw new Error(
      'This runtime has no global WebSocket: install the `ws` package, or pass a WebSocket constructor.',
      { cause: err },
    )
  }
}

/**
 * The global `WebSocket`, or `ws`'s where there is none (Node 20), loaded only then so browser
 * bundles never need it.
 *
 * @example
 * const WS = await defaultWebSocket()
 * const socket = new WS('wss://relay.example.com')
 */
export async function defaultWebSocket(): Promise<typeof WebSocket> {
  if (typeof globalThis.WebSocket === 'function') return globalThis.WebSocket
  const mod = await importWs()
  return mod.WebSocket as unknown as typeof WebSocket
}

/**
 * The constructor, with every socket it makes listening for `error` when it is a Node
 * EventEmitter (`ws`): the relay library closes a socket whose connect timed out and stops
 * listening before `ws` reports that close as an `error`, which, heard by no one, would end the
 * process. The library learns of the failure from the timeout either way.
 *
 * @example
 * const WS = heardErrors(await defaultWebSocket())
 */
export function heardErrors(WS: typeof WebSocket): typeof WebSocket {
  if (typeof (WS.prototype as { on?: unknown }).on !== 'function') return WS
  const Base = WS as unknown as new (...args: unknown[]) => { on(type: 'error', fn: () => void): void }
  return class extends Base {
    constructor(...args: unknown[]) {
      super(...args)
      this.on('error', () => {})
    }
  } as unknown as typeof WebSocket
}
