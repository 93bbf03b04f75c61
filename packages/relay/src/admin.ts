import type { Engine } from './engine'
import { RelayError } from './errors'
import { relayEvent } from './groups/intake'
import { MAX_USES } from './groups/invites'
import { LOCAL_CHAT_NAME, LOCAL_GROUP } from './groups/local-chat'
import type { CreateGroupOptions, InviteOptions } from './handle'
import { randomId } from './keys'

/**
 * Creates a group as the relay (relay-signed 9007, 9002 and 9000s); resolves to its id.
 *
 * @example
 * await createGroup(engine, { id: 'design', closed: true, admins: [alice] }) // 'design'
 */
export async function createGroup(engine: Engine, o: CreateGroupOptions): Promise<string> {
  const id = o.id ?? randomId(12)
  if (await engine.group(id)) throw new RelayError('group-exists', `group '${id}' already exists`)
  const now = engine.now()
  const patch = engine.policy.patch9002
  const meta: string[][] = []
  if (o.name) meta.push(['name', o.name])
  if (o.picture) meta.push(['picture', o.picture])
  if (o.about) meta.push(['about', o.about])
  if (o.private) meta.push(['private'])
  else if (patch) meta.push(['public'])
  if (o.restricted) meta.push(['restricted'])
  if (o.hidden) meta.push(['hidden'])
  if (o.closed) meta.push(['closed'])
  else if (patch) meta.push(['open'])
  if (o.livekit) meta.push(['livekit'])
  if (o.supportedKinds) meta.push(['supported_kinds', ...o.supportedKinds.map(String)])
  const templates = [relayEvent(9007, id, [], now), relayEvent(9002, id, meta, now)]
  for (const pk of o.admins ?? []) templates.push(relayEvent(9000, id, [['p', pk, 'admin']], now))
  for (const pk of o.members ?? []) {
    if (!(o.admins ?? []).includes(pk)) templates.push(relayEvent(9000, id, [['p', pk]], now))
  }
  await engine.own(templates)
  return id
}

/**
 * Adds an invite code to a group (relay-signed 9009); resolves to the code. Without `terms` it is
 * single-use; `uses` lets it admit that many joins (`'unlimited'`: any number) and `expiresAt`
 * (unix seconds) ends it, as the 9009's `uses`, `reusable` and `expiration` tags say.
 *
 * @example
 * await createInvite(engine, 'design') // 'k3j9x0q2ab'
 * await createInvite(engine, 'design', 'welcome', { uses: 100, expiresAt: now + 7 * 86400 })
 */
export async function createInvite(
  engine: Engine,
  groupId: string,
  code?: string,
  terms: InviteOptions = {},
): Promise<string> {
  const g = await engine.group(groupId)
  if (!g || g.deleted) throw new RelayError('unknown-group', `group '${groupId}' doesn't exist`)
  const c = code ?? randomId(10)
  const tags = [['code', c]]
  const { uses, expiresAt } = terms
  if (uses === 'unlimited') tags.push(['reusable'])
  else if (uses !== undefined) {
    if (!Number.isInteger(uses) || uses < 1 || uses > MAX_USES)
      throw new RelayError('invalid-invite', `uses must be a whole number from 1 to ${MAX_USES}`)
    tags.push(['uses', String(uses)])
  }
  if (expiresAt !== undefined) {
    if (!Number.isInteger(expiresAt) || expiresAt <= engine.now())
      throw new RelayError('invalid-invite', 'expiresAt must be a unix time in the future')
    tags.push(['expiration', String(expiresAt)])
  }
  await engine.own([relayEvent(9009, groupId, tags, engine.now())])
  return c
}

/**
 * Creates the relay-local group `_` (open, named "Relay chat", the operators as its admins) unless
 * it exists; several processes starting together on one database create it once.
 *
 * @example
 * if (opts.localChat) await openLocalChat(engine)
 */
export async function openLocalChat(engine: Engine): Promise<void> {
  await engine.store.exclusive('local-chat', async () => {
    if (await engine.group(LOCAL_GROUP)) return
    await createGroup(engine, { id: LOCAL_GROUP, name: LOCAL_CHAT_NAME, admins: [...engine.admins] })
  })
}
