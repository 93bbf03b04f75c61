import type { IncomingMessage, ServerResponse } from 'node:http'
import { GroupId, isHex64 } from '@roost/nip29'
import { WebhookReceiver } from 'livekit-server-sdk'

/** Options of {@link createLiveKitWebhookHandler}. @example { apiKey, apiSecret, onParticipants } */
export interface LiveKitWebhookOptions {
  /** The LiveKit API key and secret: webhooks are signed with them. */
  apiKey: string
  apiSecret: string
  /** Where LiveKit posts its webhooks (default `/.well-known/nip29/livekit-webhook`). */
  path?: string
  /**
   * Called with a group's participants (sorted hex pubkeys) whenever they change; the relay
   * publishes them as the group's kind 39004.
   */
  onParticipants: (groupId: string, pubkeys: string[]) => void | Promise<void>
  /** Largest accepted webhook body in bytes (default 64 KiB). */
  maxBytes?: number
}

/** Handles a request when it is the handler's; `false` leaves it to the next handler. */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) throw new BodyTooLarge()
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Receives LiveKit's signed webhooks and keeps each room's participants, so the relay can publish
 * NIP-29 kind 39004 (`["participant", pubkey]`…) for the group of the same id. Rooms and
 * identities that are not a group id and a hex pubkey (the tokens this relay mints) are ignored.
 * A webhook not signed with the API secret, or whose body does not match its signed hash, is
 * refused with 401. The roster lives in memory: after a restart it fills again as people join.
 *
 * Configure LiveKit's `webhook.urls` to `https://relay.example/.well-known/nip29/livekit-webhook`
 * with the same API key.
 *
 * @example
 * const webhook = createLiveKitWebhookHandler({ apiKey, apiSecret, onParticipants: (id, pks) => publish39004(id, pks) })
 */
export function createLiveKitWebhookHandler(options: LiveKitWebhookOptions): HttpHandler {
  const receiver = new WebhookReceiver(options.apiKey, options.apiSecret)
  const path = options.path ?? '/.well-known/nip29/livekit-webhook'
  const limit = options.maxBytes ?? 64 * 1024
  const rooms = new Map<string, Set<string>>()

  const groupOf = (name: string | undefined): string | undefined => {
    try {
      const id = GroupId.parse(name ?? '').value
      return id === name ? id : undefined
    } catch {
      return undefined
    }
  }

  async function apply(event: Awaited<ReturnType<WebhookReceiver['receive']>>): Promise<void> {
    const groupId = groupOf(event.room?.name)
    if (groupId === undefined) return
    const before = rooms.get(groupId) ?? new Set<string>()
    const after = new Set(before)
    const identity = event.participant?.identity
    switch (event.event) {
      case 'participant_joined':
        if (isHex64(identity)) after.add(identity)
        break
      case 'participant_left':
      case 'participant_connection_aborted':
        if (identity !== undefined) after.delete(identity)
        break
      case 'room_finished':
        after.clear()
        break
      default:
        return
    }
    if (after.size === before.size && [...after].every((pk) => before.has(pk))) return
    if (after.size === 0) rooms.delete(groupId)
    else rooms.set(groupId, after)
    await options.onParticipants(groupId, [...after].sort())
  }

  return async (req, res) => {
    if ((req.url ?? '').split('?')[0] !== path) return false
    if (req.method !== 'POST') {
      res.writeHead(405, { Allow: 'POST' })
      res.end()
      return true
    }
    let body: string
    try {
      body = await readBody(req, limit)
    } catch (err) {
      res.writeHead(err instanceof BodyTooLarge ? 413 : 400, { Connection: 'close' })
      res.end()
      return true
    }
    let event: Awaited<ReturnType<WebhookReceiver['receive']>>
    try {
      event = await receiver.receive(body, req.headers.authorization)
    } catch {
      res.writeHead(401, { 'Content-Type': 'text/plain' })
      res.end('invalid webhook signature')
      return true
    }
    try {
      await apply(event)
    } catch {
      res.writeHead(500)
      res.end()
      return true
    }
    res.writeHead(200)
    res.end()
    return true
  }
}
