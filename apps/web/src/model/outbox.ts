/**
 * One group's outbox: what the message boxes hand over goes into the group's {@link SendQueue}
 * and leaves in order; what is not sent goes back into the drafts it came from, with the reason
 * (a failed message the timeline shows, answered with `shown`, stays there: only those behind it
 * come back).
 */
import type { DraftBook } from './drafts'
import { NOT_SENT_BEHIND, SendQueue } from './send-queue'
import type { Answer, Draft } from './types'

/** A message handed over: its box, what the box held, and for a thread reply where it goes. */
export interface Outgoing {
  box: string
  draft: Draft
  thread?: { root: string; parent: string }
}

/** The text shown in a box whose messages came back: the reason, and how many came back. */
export function unsentNotice(answer: Answer, count: number): string {
  const reason = answer.message || 'The relay refused the message.'
  return count > 1 ? `${reason} (${count} messages were not sent; they are back in the box.)` : reason
}

/**
 * @example
 * const outbox = new Outbox(drafts, (m) => sendToRelay(m))
 * void outbox.post({ box: key, draft: { text: 'hi', mentions: [] } })
 */
export class Outbox {
  private readonly queue: SendQueue<Outgoing>

  constructor(
    private readonly drafts: Pick<DraftBook, 'restore'>,
    private readonly send: (message: Outgoing) => Promise<Answer>,
  ) {
    this.queue = new SendQueue((items, answer) => this.giveBack(items, answer))
  }

  /** Messages handed over and not yet answered. */
  get size(): number {
    return this.queue.size
  }

  subscribe(fn: () => void): () => void {
    return this.queue.subscribe(fn)
  }

  post(message: Outgoing): Promise<Answer> {
    return this.queue.push(message, () => this.send(message))
  }

  /** The page is going away: messages that have not left yet go back to their drafts. */
  keepWaiting(): void {
    const waiting = this.queue.takeWaiting()
    this.giveBack(waiting, { ok: false, message: 'Not sent: the page was closed before it left.' })
  }

  private giveBack(items: readonly Outgoing[], answer: Answer): void {
    // A failed message shown in the timeline keeps its text there; those behind it come back.
    if (answer.shown) {
      items = items.slice(1)
      answer = NOT_SENT_BEHIND
    }
    const byBox = new Map<string, Draft[]>()
    for (const m of items) byBox.set(m.box, [...(byBox.get(m.box) ?? []), m.draft])
    for (const [box, drafts] of byBox) this.drafts.restore(box, drafts, unsentNotice(answer, drafts.length))
  }
}
