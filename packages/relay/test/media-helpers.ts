import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { blossomAuthTemplate, encodeAuthHeader } from '@roost/nip29'
import { finalizeEvent } from 'nostr-tools'
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

export const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex')
export const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')
const unixNow = () => Math.floor(Date.now() / 1000)

/** An `Authorization: Nostr …` header for a Blossom upload (kind 24242) of `body` by `who`. */
export function uploadAuth(
  who: { sk: Uint8Array },
  body: Uint8Array = PNG,
  over: Partial<Parameters<typeof blossomAuthTemplate>[0]> = {},
): string {
  const template = blossomAuthTemplate({
    verb: 'upload',
    sha256: sha(body),
    expiration: unixNow() + 300,
    ...over,
  })
  return encodeAuthHeader(finalizeEvent(template, who.sk))
}

/** `PUT <base>/upload` with `body` over real HTTP. */
export function putBlob(base: string, body: Uint8Array, headers: Record<string, string>): Promise<Response> {
  return fetch(`${base}/upload`, { method: 'PUT', body: new Uint8Array(body), headers })
}
