/**
 * One group's outgoing messages, in the order they were handed over: each waits for the one
 * before it to be answered (OK, refusal or timeout) before it goes. Waiting for the answer is what
 * keeps the order: a message refused for a stale `previous`, or one that has to authenticate
 * first, is re-sent by the client, and one sent behind it without waiting would overtake it. A
 * message that is not sent stops the line: it and every message behind it are handed back
 * together (so their text can go back where it came from), and none of them is sent out of order.
 * No timers and no I/O: the caller's `run` does the sending.
 */
import type { Answer } from './types'

/** The answer given to a message that never left because one before it failed. */
export const NOT_SENT_BEHIND: Answer = { ok: false, message: 'Not sent: a message before it was not sent.' }

interface Entry<T> {
  item: T
  run: () => Promise<Answer>
  resolve: (answer: Answer) => void
}

/**
 * A send queue. `onUnsent` gets the messages a failure stopped (the failed one first, then those
 * behind it, in order) with the failed one's answer.
 *
 * @example
 * const queue = new SendQueue<string>((texts, answer) => restore(texts, answer.message))
 * void queue.push('hello', () => group.send('hello'))
 * void queue.push('again', () => group.send('again')) // leaves after 'hello' is answered
 */
export class SendQueue<T> {
  private readonly waiting: Entry<T>[] = []
  private running: Entry<T> | undefined
  private readonly listeners = new Set<() => void>()

  constructor(private readonly onUnsent: (items: T[], answer: Answer) => void) {}

  /** Messages handed over and not yet answered (the one in flight included). */
  get size(): number {
    return this.waiting.length + (this.running ? 1 : 0)
  }

  /** Called when `size` changes. */
  subscribe(fn: () => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  /**
   * Queues a message; `run` is called once every message before it has been answered. Resolves
   * with its own answer, or {@link NOT_SENT_BEHIND} when a failure before it stopped the line.
   */
  push(item: T, run: () => Promise<Answer>): Promise<Answer> {
    return new Promise<Answer>((resolve) => {
      this.waiting.push({ item, run, resolve })
      this.changed()
      if (!this.running) void this.drain()
    })
  }

  /**
   * Takes the messages that have not left yet (the page is going away): they are not sent, and
   * come back in order for the caller to keep. The one in flight, if any, is left to its answer.
   */
  takeWaiting(): T[] {
    const taken = this.waiting.splice(0)
    for (const e of taken) e.resolve(NOT_SENT_BEHIND)
    if (taken.length > 0) this.changed()
    return taken.map((e) => e.item)
  }

  private async drain(): Promise<void> {
    while (!this.running && this.waiting.length > 0) {
      const entry = this.waiting.shift() as Entry<T>
      this.running = entry
      let answer: Answer
      try {
        answer = await entry.run()
      } catch (err) {
        answer = { ok: false, message: err instanceof Error ? err.message : String(err) }
      }
      this.running = undefined
      if (answer.ok) {
        entry.resolve(answer)
        this.changed()
        continue
      }
      const behind = this.waiting.splice(0)
      this.onUnsent([entry.item, ...behind.map((e) => e.item)], answer)
      entry.resolve(answer)
      for (const e of behind) e.resolve(NOT_SENT_BEHIND)
      this.changed()
    }
  }

  private changed(): void {
    for (const l of this.listeners) l()
  }
}
