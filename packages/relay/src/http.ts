import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Engine } from './engine'
import { relayInfo } from './nip11'
import { safetyHeaders, serveStatic } from './static'

/**
 * Plain HTTP on the relay's port: NIP-11 for `Accept: application/nostr+json`, CORS preflight, the
 * static directory when one is set, and a one-line hint otherwise.
 */
export function handleHttp(engine: Engine, req: IncomingMessage, res: ServerResponse): void {
  const accept = req.headers.accept ?? ''
  if (req.method === 'OPTIONS') {
    res.writeHead(204, { ...safetyHeaders('text/plain; charset=utf-8'), ...cors() })
    res.end()
    return
  }
  if (accept.includes('application/nostr+json')) {
    res.writeHead(200, { ...safetyHeaders('application/nostr+json'), ...cors() })
    res.end(
      JSON.stringify(
        relayInfo(
          engine.policy,
          { relay: engine.pubkey, owner: engine.ownerPubkey },
          engine.ctx.lateWindow,
          engine.ctx.limits,
          engine.opts.maxUpload,
          { info: engine.bans.info, nip86: engine.admins.size > 0 },
        ),
      ),
    )
    return
  }
  if ((req.url ?? '').startsWith('/.well-known/nip29/livekit')) {
    // No LiveKit configured: the relay offers no audio/video (a configured relay answers before this).
    res.writeHead(404, { ...safetyHeaders('text/plain; charset=utf-8'), ...cors() })
    res.end('this relay offers no audio/video\n')
    return
  }
  if (engine.opts.staticDir) {
    serveStatic(engine.opts.staticDir, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, safetyHeaders('text/plain; charset=utf-8'))
      res.end()
    })
    return
  }
  res.writeHead(200, safetyHeaders('text/plain; charset=utf-8'))
  res.end('Roost relay: connect with a Nostr client over WebSocket.\n')
}

function cors(): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Headers': '*',
    'Access-Control-Allow-Methods': 'GET, OPTIONS',
  }
}
