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
  private local: { membership: Membership; known: string[] } | undefined
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

  /** The ids of the evidence held now: taken when our 9021/9022 leaves, for {@link setLocal}. */
  known(): string[] {
    return this.held().map((e) => e.id)
  }

  /**
   * What the relay said to our own 9021/9022, until evidence that was not `known` when it left
   * says otherwise (the relay's events are compared with each other, never with our own clock;
   * the relay's own 9000 may arrive before its OK).
   */
  setLocal(membership: Membership, known: string[]): void {
    this.local = { membership, known }
  }

  /** The membership as the evidence held now says. */
  compute(): Membership {
    const evidence = this.held()
    if (!this.local) {
      const folded = foldMembership(evidence, this.me)
      return folded.status === 'unknown' && this.remembered ? this.remembered : folded
    }
    return foldMembership(evidence, this.me, { answer: this.local })
  }

  /** The trusted 9000/9001 naming us and the newest 39002. */
  private held(): NostrEvent[] {
    const trusted = this.evidence.filter((e) => this.state.isModerator(e.pubkey))
    const members = this.state.event(KINDS.members)
    return members ? [...trusted, members] : trusted
  }
}
