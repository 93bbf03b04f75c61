/**
 * Hostile people and hosts for the safety tests: a stranger who publishes from outside the browser
 * (kind 0, a group created with their own signed 9007, messages), and a tracking image host that
 * counts every request it gets.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type EventTemplate, finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools'
import { SimplePool, useWebSocketImplementation as setPoolWebSocket } from 'nostr-tools/pool'
import WebSocket from 'ws'
import { png } from './media-files'

setPoolWebSocket(WebSocket)

/** An HTTP server that answers every path with a small PNG and records the path of each request. */
export interface TrackingHost {
  /** `http://127.0.0.1:PORT` */
  base: string
  /** `127.0.0.1:PORT`, as the client names the host. */
  host: string
  hits: string[]
  close(): void
}

export async function trackingHost(): Promise<TrackingHost> {
  const hits: string[] = []
  const image = png(24, 24, 3)
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '')
    res.writeHead(200, { 'Content-Type': 'image/png', 'Cache-Control': 'no-store' })
    res.end(image)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`
  return { base: `http://${host}`, host, hits, close: () => server.close() }
}

/** Someone who never opens the client: signs and publishes with nostr-tools, straight to the relay. */
export interface Stranger {
  pubkey: string
  publish(template: Omit<EventTemplate, 'created_at'>): Promise<string>
  close(): void
}

export function stranger(relay: string): Stranger {
  const sk = generateSecretKey()
  const pool = new SimplePool()
  return {
    pubkey: getPublicKey(sk),
    async publish(template) {
      const event = finalizeEvent({ ...template, created_at: Math.floor(Date.now() / 1000) }, sk)
      const answers = await Promise.allSettled(pool.publish([relay], event))
      const first = answers[0]
      if (first?.status === 'rejected') throw new Error(`relay refused kind ${event.kind}: ${first.reason}`)
      return event.id
    },
    close: () => pool.close([relay]),
  }
}

/** The stranger's kind 0. */
export function setProfile(s: Stranger, profile: { name: string; picture?: string }): Promise<string> {
  return s.publish({ kind: 0, content: JSON.stringify(profile), tags: [] })
}

/**
 * A group the stranger creates themself (their own 9007, then a 9002 with the metadata): the relay
 * makes them its admin and signs its 39000 like any other group's.
 */
export async function strangerGroup(
  s: Stranger,
  fields: { id: string; name: string; picture?: string; about?: string },
): Promise<string> {
  await s.publish({ kind: 9007, content: '', tags: [['h', fields.id]] })
  const meta = [
    ['h', fields.id],
    ['name', fields.name],
  ]
  if (fields.picture) meta.push(['picture', fields.picture])
  if (fields.about) meta.push(['about', fields.about])
  await s.publish({ kind: 9002, content: '', tags: meta })
  return fields.id
}

/** A kind 9 from the stranger in a group they belong to. */
export function say(s: Stranger, groupId: string, text: string): Promise<string> {
  return s.publish({ kind: 9, content: text, tags: [['h', groupId]] })
}
