// Who may upload to the relay's Blossom: the operator's policy, and the pure rule behind `invited`.
import { RelayOptionError } from '../errors'

/**
 * Who may upload (`--upload-policy`):
 * - `'invited'` (the default): a member of some group here whom someone else let in: added by
 *   another member's 9000 (an admin or moderator), joined with an invite code someone else made,
 *   or added by the operator (`createGroup({ members })`). Creating a group or joining an open one
 *   is not enough, so a fresh key cannot pass alone.
 * - `'members'`: named in any group's member list (39002); weak, since one 9007 makes anyone the
 *   member of a group of their own.
 * - `{ groups: [...] }`: members of the listed groups.
 * - `{ keys: [...] }`: the listed keys only (the operators, say).
 * - `'anyone'`: any key that signs the authorization. `'none'`: no uploads (blobs stay served).
 *
 * @example
 * await startRelay({ uploadPolicy: { groups: ['staff'] } })
 */
export type UploadPolicy =
  | 'invited'
  | 'members'
  | 'anyone'
  | 'none'
  | {
      /** Ids of the groups whose members may upload. */
      readonly groups: readonly string[]
    }
  | {
      /** Hex public keys that may upload. */
      readonly keys: readonly string[]
    }

/** Who may upload when the operator does not say. */
export const DEFAULT_UPLOAD_POLICY: UploadPolicy = 'invited'

const NAMED = ['invited', 'members', 'anyone', 'none'] as const
const HEX64 = /^[0-9a-f]{64}$/

/**
 * Reads `--upload-policy`: `invited`, `members`, `anyone`, `none`, `groups:<id>[,<id>…]` or
 * `keys:<hex pubkey>[,…]`. Throws {@link RelayOptionError} naming what is wrong.
 *
 * @example
 * parseUploadPolicy('groups:staff,media') // { groups: ['staff', 'media'] }
 */
export function parseUploadPolicy(text: string): UploadPolicy {
  const named = NAMED.find((n) => n === text)
  if (named !== undefined) return named
  const m = /^(groups|keys):(.+)$/.exec(text)
  if (m === null)
    throw new RelayOptionError(
      `unknown upload policy '${text}': invited, members, anyone, none, groups:<id,…> or keys:<pubkey,…>`,
    )
  const list = (m[2] as string).split(',').map((v) => v.trim())
  return checkUploadPolicy(m[1] === 'groups' ? { groups: list } : { keys: list })
}

/**
 * Checks an `uploadPolicy` option; returns it, or throws {@link RelayOptionError}.
 *
 * @example
 * checkUploadPolicy({ keys: ['ab'] }) // throws: not a 64-hex pubkey
 */
export function checkUploadPolicy(policy: UploadPolicy): UploadPolicy {
  if (typeof policy === 'string') {
    if (!(NAMED as readonly string[]).includes(policy))
      throw new RelayOptionError(`unknown upload policy '${String(policy)}'`)
    return policy
  }
  if (policy && 'groups' in policy && Array.isArray(policy.groups)) {
    if (policy.groups.length === 0 || policy.groups.some((g) => typeof g !== 'string' || g === ''))
      throw new RelayOptionError('upload policy groups: list at least one group id')
    return policy
  }
  if (policy && 'keys' in policy && Array.isArray(policy.keys)) {
    if (policy.keys.length === 0 || policy.keys.some((k) => typeof k !== 'string' || !HEX64.test(k)))
      throw new RelayOptionError('upload policy keys: list 64-hex lowercase pubkeys')
    return policy
  }
  throw new RelayOptionError('uploadPolicy must be a policy name, { groups } or { keys }')
}

/**
 * The policy's name as NIP-11 shows it (`roost.blossom.uploads`); lists are not shown (a group id
 * may be hidden, a key private).
 *
 * @example
 * uploadPolicyName({ groups: ['staff'] }) // 'groups'
 */
export function uploadPolicyName(policy: UploadPolicy): string {
  return typeof policy === 'string' ? policy : 'groups' in policy ? 'groups' : 'keys'
}

/** The reason a key the policy does not admit is given (403). */
export function policyRefusal(policy: UploadPolicy): string {
  if (policy === 'none') return 'this relay takes no uploads'
  if (policy === 'members') return 'uploads are for members of a group on this relay'
  if (policy === 'invited')
    return 'uploads are for members someone else let into a group here (an admin added you, or you joined with an invite code); creating a group or joining an open one is not enough'
  if (typeof policy !== 'string' && 'groups' in policy)
    return 'uploads are for members of some groups on this relay'
  return 'this key may not upload to this relay'
}

/** How one of a key's current memberships began, as the relay's stored events tell it. */
export interface Admission {
  /** The newest 9000 naming the key in that group: who signed it, and its tags. */
  readonly add: { readonly pubkey: string; readonly tags: readonly (readonly string[])[] }
  /** The author of the group's 9007 (who created it), when stored. */
  readonly creator: string | undefined
  /** The key asked in itself (a 9021 of its own), or the relay let it in as a join (the profile's join role). */
  readonly joinedItself: boolean
  /** The authors of the 9009s that made the invite code the 9000 (or the join request) names (empty without a code). */
  readonly codeAuthors: readonly string[]
  /** The code the key's own join request named: a code good for several joins stays out of the public 9000. */
  readonly requestCode?: string
}

/**
 * Whether someone other than `pubkey` let it into the group (the `invited` policy):
 * - a 9000 signed by another key (not the relay): an admin or moderator added it;
 * - a relay-made 9000 naming an invite code that another key (or the operator) made, or following
 *   a join request that named one (codes good for several joins are named there only);
 * - a relay-made 9000 without a code in a group the operator created, for a key that did not
 *   join by itself (`createGroup({ members })`).
 * A key's own 9007 (its relay-made admin 9000), its join to an open group and a code it made
 * itself do not count.
 *
 * @example
 * letInBySomeoneElse(bob, relayKey, { add: { pubkey: alice, tags: [['h', 'g'], ['p', bob]] }, creator: alice, joinedItself: false, codeAuthors: [] }) // true
 */
export function letInBySomeoneElse(pubkey: string, relayKey: string, a: Admission): boolean {
  if (a.add.pubkey !== relayKey) return a.add.pubkey !== pubkey
  const code = a.add.tags.find((t) => t[0] === 'code')?.[1] || a.requestCode
  if (code) return a.codeAuthors.some((author) => author !== pubkey)
  return a.creator === relayKey && !a.joinedItself
}
