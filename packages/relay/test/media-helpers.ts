import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { onTestFinished } from 'vitest'

/** A real node:http server running `handler`, answering 404 for what it leaves; closed after the test. */
export async function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>,
): Promise<string> {
  const server = createServer((req, res) => {
    handler(req, res).then(
      (handled) => {
        if (!handled) {
          res.writeHead(404, { 'X-Fallthrough': '1' })
          res.end('next handler')
        }
      },
      () => {
        res.writeHead(500)
        res.end()
      },
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  )
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
