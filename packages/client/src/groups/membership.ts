import { foldMembership, KINDS, type Membership } from '@roost/nip29'
import type { NostrEvent } from 'nostr-tools/core'
import type { GroupState } from './group-state'

/**
 * Our membership in one group (decision 5): folded from the 9000/9001 naming us (signed by the
 * relay key or an admin), the 39002 when present, what the relay answered to our own 9021/9022,
 * and, until this session's evidence decides, what the last session folded.
 */
export class MembershipFold {
  private readonly evidence: NostrEvent[] = []
  private local: { membership: Membership; at: number } | undefined
  private remembered: Membership | undefined

  constructor(
    private readonly me: string,
    private readonly state: GroupState,
  ) {}

  /** Keeps a timeline event if it is a 9000/9001 naming us. */
  consider(event: NostrEvent): void {
    if (event.kind !== KINDS.putUser && event.kind !== KINDS.removeUser) return
    if (event.tags.some((t) => t[0] === 'p' && t[1] === this.me)) this.evidence.push(event)
  }

  /** What the last session folded, shown until evidence arrives. */
  remember(membership: Membership): void {
    this.remembered = membership
  }

  /** What the relay said to our own 9021/9022, until evidence at least as new says otherwise. */
  setLocal(membership: Membership, at: number): void {
    this.local = { membership, at }
  }

  /** The membership as the evidence held now says. */
  compute(): Membership {
    const trusted = this.evidence.filter((e) => this.state.isModerator(e.pubkey))
    const members = this.state.event(KINDS.members)
    const evidence = members ? [...trusted, members] : trusted
    const folded = foldMembership(evidence, this.me)
    if (!this.local) return folded.status === 'unknown' && this.remembered ? this.remembered : folded
    let evidenceAt = -1
    for (const e of trusted) evidenceAt = Math.max(evidenceAt, e.created_at)
    if (members && this.state.members?.contains(this.me))
      evidenceAt = Math.max(evidenceAt, members.created_at)
    return evidenceAt >= this.local.at && folded.status !== 'unknown' ? folded : this.local.membership
  }
}
