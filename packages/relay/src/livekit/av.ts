import type { NostrEvent } from 'nostr-tools'
import { finalizeEvent } from 'nostr-tools/pure'
import type { Engine } from '../engine'
import { isMember } from '../groups/record'
import type { LiveKitConfig } from './config'
import type { HttpHandler } from './token-endpoint'

/**
 * The relay's AV handlers over its engine: tokens for members of groups that have the `livekit`
 * flag (a non-member, an unknown group and a hidden one get the same refusal), and LiveKit's
 * webhooks turned into relay-signed 39004 events. Built once the relay listens, so the NIP-98 `u`
 * check knows the public URL. The LiveKit SDK (an optional peer) is loaded here, on first use.
 */
export async function liveKitHttp(engine: Engine, config: LiveKitConfig): Promise<HttpHandler> {
  const [{ createLiveKitHandler }, { createLiveKitWebhookHandler }] = await Promise.all([
    import('./token-endpoint'),
    import('./participants'),
  ])
  const token = createLiveKitHandler({
    url: config.url,
    apiKey: config.apiKey,
    apiSecret: config.apiSecret,
    publicUrl: engine.ctx.publicUrls(),
    ...(config.ttlSeconds === undefined ? {} : { ttlSeconds: config.ttlSeconds }),
    clock: () => engine.now(),
    verify: (event) => engine.ctx.verify(event),
    isMember: async (groupId, pubkey) => {
      if (engine.bans.isBanned(pubkey)) return false
      const g = await engine.group(groupId)
      return !!g && !g.deleted && g.livekit && isMember(g, pubkey)
    },
  })
  const webhook = createLiveKitWebhookHandler({
    apiKey: config.apiKey,
    apiSecret: config.apiSecret,
    onParticipants: (groupId, pubkeys) => publishParticipants(engine, groupId, pubkeys),
  })
  return async (req, res) => (await webhook(req, res)) || token(req, res)
}

/**
 * Signs and stores a group's kind 39004 (`["participant", pubkey]`…), with a `created_at` after the
 * stored one, and sends it to live subscriptions (read like the group's other content: members
 * only in a private group). Nothing for an unknown or deleted group, nor for one without the
 * `livekit` flag: a LiveKit server may host rooms of other apps, named like any group here.
 */
export async function publishParticipants(engine: Engine, groupId: string, pubkeys: string[]): Promise<void> {
  const saved = await engine.store.unit(groupId, async (tx): Promise<NostrEvent | undefined> => {
    const g = await tx.group(groupId)
    if (!g || g.deleted || !g.livekit) return undefined
    const stored = await tx.latest(39004, engine.pubkey, groupId)
    const event = finalizeEvent(
      {
        kind: 39004,
        created_at: Math.max(engine.now(), stored ? stored.created_at + 1 : 0),
        tags: [['d', groupId], ...pubkeys.map((pk) => ['participant', pk])],
        content: '',
      },
      engine.ctx.secret,
    )
    return (await tx.insert(event)) === 'saved' ? event : undefined
  })
  if (saved) engine.broadcast([saved])
}

/**
 * After a start with LiveKit configured or not: re-signs the 39000 of each group with the
 * `livekit` flag whose stored event shows or hides it against the current configuration.
 */
export async function refreshAvFlags(engine: Engine): Promise<void> {
  const page = engine.ctx.limits.maxLimit
  const stale: string[] = []
  for (let offset = 0; ; offset += page) {
    const rows = await engine.store.query({ kinds: [39000], authors: [engine.pubkey] }, page, offset)
    for (const row of rows) {
      const event = JSON.parse(row.json) as NostrEvent
      const id = event.tags.find((t) => t[0] === 'd')?.[1]
      if (id !== undefined && event.tags.some((t) => t[0] === 'livekit') !== engine.ctx.av) stale.push(id)
    }
    if (rows.length < page) break
  }
  // Re-signed once every page was read, so the paging does not shift under the rewrites.
  for (const id of stale) {
    const g = await engine.group(id)
    if (g && !g.deleted && g.livekit) engine.broadcast(await engine.intake.refresh(id))
  }
}
