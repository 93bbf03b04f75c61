import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Engine } from './engine'
import { DEFAULT_MAX_BLOB_BYTES } from './media/blossom-server'
import { DEFAULT_UPLOAD_POLICY, uploadPolicyName } from './media/upload-policy'
import { settleUploadQuota } from './media/upload-quota'
import { relayInfo } from './nip11'
import { contentSecurityPolicy, safetyHeaders, serveStatic } from './static'

/**
 * Plain HTTP on the relay's port: NIP-11 for `Accept: application/nostr+json`, CORS preflight, the
 * static directory when one is set (its CSP admits `mediaOrigin` for images and media), and a
 * one-line hint otherwise.
 */
export function handleHttp(
  engine: Engine,
  req: IncomingMessage,
  res: ServerResponse,
  mediaOrigin?: (req: IncomingMessage) => string,
): void {
  const accept = req.headers.accept ?? ''
  if (req.method === 'OPTIONS') {
    res.writeHead(204, { ...safetyHeaders('text/plain; charset=utf-8'), ...cors() })
    res.end()
    return
  }
  if (accept.includes('application/nostr+json')) {
    // `Date` by the relay's own clock (the one it checks `created_at` against), readable across
    // origins: a client whose clock runs ahead dates its events by it.
    const date = new Date(engine.ctx.now() * 1000).toUTCString()
    res.writeHead(200, { ...safetyHeaders('application/nostr+json'), ...cors(), Date: date })
    res.end(
      JSON.stringify(
        relayInfo(
          engine.policy,
          { relay: engine.pubkey, owner: engine.ownerPubkey },
          engine.ctx.lateWindow,
          engine.ctx.limits,
          {
            ...(mediaOrigin && { url: mediaOrigin(req) }),
            maxUpload: engine.opts.maxUpload ?? DEFAULT_MAX_BLOB_BYTES,
            uploads: uploadPolicyName(engine.opts.uploadPolicy ?? DEFAULT_UPLOAD_POLICY),
            quota: settleUploadQuota(engine.opts.uploadQuota),
          },
          { info: engine.bans.info, nip86: engine.admins.size > 0, localChat: engine.ctx.localChat },
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
    const csp = contentSecurityPolicy(mediaOrigin?.(req))
    serveStatic(engine.opts.staticDir, req, res, csp).catch(() => {
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
    'Access-Control-Expose-Headers': 'Date',
  }
}
