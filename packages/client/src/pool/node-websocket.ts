/**
 * Loads `ws` (an optional peer dependency) for Node versions without a global WebSocket. The
 * specifier is a variable so that browser bundlers neither resolve nor bundle it: browsers always
 * have `globalThis.WebSocket` and never reach this.
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
