import type { GroupMetadata, Membership } from '@roost/nip29'
import type { CanSend } from './types'

/**
 * Whether a message of `kind` can be sent given the group's metadata and our membership, and why
 * not: `unsupported-kind` when `supported_kinds` lacks it, or a membership reason.
 */
export function canSendWith(meta: GroupMetadata | undefined, membership: Membership, kind: number): CanSend {
  if (meta && !meta.supports(kind)) {
    return { ok: false, reason: 'unsupported-kind', detail: `this group does not take kind ${kind} events` }
  }
  // `restricted` and `private` are members-only by the spec; `closed` is on the relays that
  // matter (pyramid, relay29, ours in strict mode), so a non-member is told to join first.
  // Without metadata (a hidden group keeps it from strangers) our own known state decides,
  // except an `auth-required:` refusal: the send itself authenticates or says so.
  const needsMembership = meta
    ? meta.restricted || meta.private || meta.closed
    : membership.status !== 'unknown' &&
      !(membership.status === 'refused' && membership.reason.startsWith('auth-required:'))
  if (!needsMembership || membership.status === 'member') return { ok: true }
  switch (membership.status) {
    case 'pending':
      return { ok: false, reason: 'pending', detail: 'your join request is waiting for approval' }
    case 'refused':
      return { ok: false, reason: 'refused', detail: membership.reason }
    case 'removed':
      return { ok: false, reason: 'removed', detail: 'you are no longer a member of this group' }
    default:
      return { ok: false, reason: 'not-member', detail: 'only members can write here: join first' }
  }
}
