import {
  GroupKey,
  type GroupMetadataFields,
  type GroupReference,
  KINDS,
  membershipAfterReply,
} from '@roost/nip29'
import type { RelayPool } from '../pool'
import type { Signer } from '../signers'
import type { GroupCore } from './group-core'
import type { GroupIndex } from './group-index'
import type { GroupListSync } from './group-list-sync'
import { publishError } from './publish-errors'
import type { RelayKeys } from './relay-keys'

/** What joining, leaving and creating need from the registry. */
export interface JoinContext {
  readonly pool: RelayPool
  readonly signer: Signer
  readonly clock: () => number
  readonly publishTimeout?: number
  readonly relayKeys: RelayKeys
  readonly index: GroupIndex
  readonly lists: GroupListSync
}

const timeoutOf = (ctx: JoinContext) => ctx.publishTimeout ?? ctx.pool.publishTimeout

/**
 * Asks to join (`GroupsRegistry.join`): learns the relay key, fetches the 39000 (a hidden group may
 * not answer), subscribes, sends the 9021 with the code and folds the relay's answer into our
 * membership (decision 5); the group is listed in the 10009 whatever the answer. Throws only when
 * the relay could not be reached or did not answer.
 */
export async function joinGroup(ctx: JoinContext, ref: GroupReference, code?: string): Promise<GroupCore> {
  const { pool, signer, index } = ctx
  const key = ref.key()
  const relayKey = await ctx.relayKeys.resolve(key.relay, ref.relayKey)
  const group = await index.add(key, relayKey)
  index.notify()
  const meta = await pool.fetch(
    [key.relay],
    [
      {
        kinds: [KINDS.metadata],
        '#d': [key.id.value],
        ...(relayKey ? { authors: [relayKey] } : {}),
        limit: 1,
      },
    ],
  )
  group.ingestMany(meta)
  if (!index.subscriptions.isOpen(key)) await index.open(group)
  const now = ctx.clock() + pool.clockOffset(key.relay) // by the relay's clock when ours runs ahead
  const request = await signer.signEvent(key.id.joinRequest({ code: code ?? ref.invite, createdAt: now }))
  const known = group.membershipKnown() // the relay's own 9000 may come before its OK
  const [result] = await pool.publish([key.relay], request, { timeout: ctx.publishTimeout })
  const membership = membershipAfterReply(
    KINDS.joinRequest,
    { ok: result!.ok, message: result!.message },
    now,
  )
  const answered = !result!.timedOut && result!.failure !== 'unreachable'
  if (result!.ok) group.ingest(request) // the relay's ring holds it: keep the window in step
  if (answered && membership) group.setLocalMembership(membership, known)
  await ctx.lists.upsert(key, group.state.metadata?.name)
  if (!answered) throw publishError(result!, timeoutOf(ctx))
  // A private group refuses the REQ before we are a member: ask again now that we asked to join.
  if (result!.ok || result!.message.startsWith('duplicate:')) {
    if (group.subscription.refused !== undefined) await index.open(group)
  }
  return group
}

/**
 * Leaves (`GroupsRegistry.leave`): sends the 9022; on OK, or when we were not a member anyway,
 * drops the group and its cache and removes it from the 10009. A member whose leave the relay
 * refuses or does not answer keeps the group, and the error is thrown.
 */
export async function leaveGroup(ctx: JoinContext, group: GroupCore): Promise<void> {
  const { key } = group
  const wasMember = group.snapshot().membership.status === 'member'
  const now = ctx.clock() + ctx.pool.clockOffset(key.relay)
  const request = await ctx.signer.signEvent(key.id.leaveRequest({ createdAt: now }))
  const [result] = await ctx.pool.publish([key.relay], request, { timeout: ctx.publishTimeout })
  if (!result!.ok && wasMember) throw publishError(result!, timeoutOf(ctx))
  await ctx.index.forget(key)
  await ctx.lists.remove(key)
}

/**
 * Creates a group (`GroupsRegistry.create`): 9007 (a random `[a-z0-9]` id unless given), then a
 * 9002 with the full metadata, since relays disagree on a new group's defaults. Resolves with its
 * key; the caller joins it.
 */
export async function createGroup(
  ctx: JoinContext,
  relay: string,
  fields: GroupMetadataFields & { id?: string },
): Promise<GroupKey> {
  const { id: wanted, ...metadata } = fields
  const key = new GroupKey(relay, wanted ?? randomId())
  const timeout = timeoutOf(ctx)
  const create = await ctx.signer.signEvent(key.id.createGroup({ createdAt: ctx.clock() }))
  const [created] = await ctx.pool.publish([key.relay], create, { timeout })
  if (!created!.ok) throw publishError(created!, timeout)
  const relayKey = await ctx.relayKeys.resolve(key.relay)
  const group = await ctx.index.add(key, relayKey)
  ctx.index.notify()
  await ctx.index.open(group)
  // The 9002 goes through the group so that it carries fresh `previous` references.
  await group.writers.publisher.refreshWindow()
  await group.group.admin.editMetadata({
    private: false,
    closed: false,
    restricted: false,
    hidden: false,
    ...metadata,
  })
  return key
}

/** 12 random characters from `[a-z0-9]`, the portable group id alphabet. */
function randomId(length = 12): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'
  const bytes = new Uint8Array(length)
  globalThis.crypto.getRandomValues(bytes)
  let out = ''
  for (const b of bytes) out += alphabet[b % alphabet.length]
  return out
}
