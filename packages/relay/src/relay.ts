import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createTlsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { WebSocketServer } from 'ws'
import { createGroup, createInvite, openLocalChat } from './admin'
import { seedDemo } from './demo'
import { Engine } from './engine'
import { RelayOptionError } from './errors'
import { snapshot } from './groups/record'
import type { DemoInfo, RelayHandle } from './handle'
import { handleHttp } from './http'
import { liveKitHttp, refreshAvFlags } from './livekit/av'
import type { HttpHandler } from './livekit/token-endpoint'
import { checkMediaUrl } from './media/media-origin'
import { checkMaxUpload, startRelayMedia } from './media/relay-media'
import { checkUploadPolicy } from './media/upload-policy'
import { settleUploadQuota } from './media/upload-quota'
import { operatorHttp } from './operator-http'
import { loadOptional } from './optional'
import type { RelayOptions } from './options'
import { closeRelay } from './shutdown'

/** How often connections are pinged, seconds; one missed pong closes them. */
const HEARTBEAT_S = 30

/**
 * Starts a relay. Resolves once it listens.
 *
 * @example
 * const relay = await startRelay({ port: 0 })
 * const groupId = await relay.createGroup({ name: 'Pizza', closed: true })
 * const code = await relay.createInvite(groupId)
 * await relay.close()
 */
export async function startRelay(opts: RelayOptions = {}): Promise<RelayHandle> {
  checkMaxUpload(opts.maxUpload)
  checkMediaUrl(opts.mediaUrl)
  checkMediaPort(opts.mediaPort)
  if (opts.uploadPolicy !== undefined) checkUploadPolicy(opts.uploadPolicy)
  settleUploadQuota(opts.uploadQuota)
  // An optional peer: refused before anything starts when LiveKit is configured and it is missing.
  if (opts.livekit)
    await loadOptional('livekit-server-sdk', 'LiveKit (--livekit-url)', () => import('livekit-server-sdk'))
  const engine = await Engine.open(opts)
  const host = opts.host ?? '127.0.0.1'
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host
  // Blossom gets an origin of its own: uploads are anyone's bytes and must never be this page's.
  let media: Awaited<ReturnType<typeof startRelayMedia>>
  try {
    media = await startRelayMedia(engine, host, urlHost)
  } catch (err) {
    await engine.close()
    throw err
  }
  let closing: Promise<void> | undefined
  const operator = operatorHttp(engine, () => closing !== undefined)
  // Extra HTTP endpoints (LiveKit is built once the relay knows its public URL); a request they
  // leave goes on to the next, then to NIP-11 and the static files.
  let livekit: HttpHandler | undefined
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const next = async () => {
      if (await operator(req, res)) return
      if (await media.onRelayPort(req, res)) return
      if (livekit && (await livekit(req, res))) return
      handleHttp(engine, req, res, media.origin)
    }
    next().catch(() => res.destroy())
  }
  const server: Server = opts.tls ? createTlsServer(opts.tls, onRequest) : createServer(onRequest)
  const wss = new WebSocketServer({ server, maxPayload: engine.ctx.limits.maxMessageLength * 4 })
  wss.on('connection', (ws, req) => engine.attach(ws, req))
  wss.on('error', () => {})
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(opts.port ?? 0, host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (err) {
    await media.close()
    await engine.close()
    throw err
  }
  const port = (server.address() as AddressInfo).port
  engine.url = `${opts.tls ? 'wss' : 'ws'}://${urlHost}:${port}`
  if (opts.livekit) livekit = await liveKitHttp(engine, opts.livekit)
  let demo: DemoInfo | undefined
  if (opts.demo) demo = await seedDemo(engine)
  if (opts.localChat) await openLocalChat(engine)
  await refreshAvFlags(engine)
  const heartbeat = setInterval(() => engine.heartbeat(), (opts.heartbeat ?? HEARTBEAT_S) * 1000)
  heartbeat.unref()
  const handle: RelayHandle = {
    url: engine.url,
    mediaUrl: media.url,
    pubkey: engine.pubkey,
    ownerPubkey: engine.ownerPubkey,
    state: (id) => {
      const g = engine.state(id)
      return g ? snapshot(g) : undefined
    },
    createGroup: (o) => createGroup(engine, o),
    createInvite: (id, code, terms) => createInvite(engine, id, code, terms),
    close: () => {
      closing ??= closeRelay({ engine, server, wss, media, heartbeat })
      return closing
    },
    ...(demo && { demo }),
  }
  return handle
}

/** Throws {@link RelayOptionError} unless `mediaPort` is absent or a port number (0: a free one). */
function checkMediaPort(port: number | undefined): void {
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535))
    throw new RelayOptionError('mediaPort must be an integer from 0 to 65535')
}
