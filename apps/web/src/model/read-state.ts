/**
 * Read state for the app: a `ReadStateSync` (NIP-RS) from @roost/client, behind a small switch
 * so the "keep read state on this device only" setting can change at run time. Switching
 * closes the running sync (which flushes) and starts one with the other mode; marks persist in
 * the store per account, so nothing read is forgotten.
 */
import {
  type ReadStateRelays,
  type ReadStateSource,
  ReadStateSync,
  type ReadStateSyncOptions,
} from '@roost/client'

export type ReadMarks = ReadStateSource

export class ReadStateSwitch implements ReadStateSource {
  private sync: ReadStateSync
  private off: () => void
  private readonly listeners = new Set<() => void>()
  private switching: Promise<void> = Promise.resolve()

  constructor(
    private options: Omit<ReadStateSyncOptions, 'localOnly'>,
    private localOnly: boolean,
  ) {
    this.sync = new ReadStateSync({ ...options, localOnly })
    this.off = this.sync.subscribe(() => this.emit())
  }

  /** Resolves when the current sync has loaded its state (and, when syncing, the relays' blobs). */
  get ready(): Promise<void> {
    return this.sync.ready
  }

  /** This installation's NIP-RS ids (once ready). */
  get clientId(): string | undefined {
    return this.sync.clientId
  }
  get slotId(): string | undefined {
    return this.sync.slotId
  }

  get isLocalOnly(): boolean {
    return this.localOnly
  }

  private emit(): void {
    for (const l of this.listeners) l()
  }

  /** Every context's value (`msg:` and `thread:` marks too), so groups can list unread threads. */
  get contexts(): ReadStateSync['contexts'] {
    return this.sync.contexts
  }

  frontier(context: string): number {
    return this.sync.frontier(context)
  }

  markRead(context: string, timestamp: number): void {
    try {
      this.sync.markRead(context, timestamp)
    } catch {
      // A closed sync during a switch, or an id that is not an event id: nothing to mark.
    }
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Publishes what is pending now (tab hidden, sign-out). */
  flush(): Promise<void> {
    return this.sync.flush()
  }

  setLocalOnly(localOnly: boolean): Promise<void> {
    if (localOnly === this.localOnly) return this.switching
    this.localOnly = localOnly
    this.switching = this.switching.then(async () => {
      const old = this.sync
      this.off()
      await old.close().catch(() => undefined)
      this.sync = new ReadStateSync({ ...this.options, localOnly })
      this.off = this.sync.subscribe(() => this.emit())
      await this.sync.ready.catch(() => undefined)
      this.emit()
    })
    return this.switching
  }

  /** Moves read state to these relays at once (and keeps them for a later mode switch). */
  setRelays(relays: ReadStateRelays): Promise<void> {
    this.options = { ...this.options, relays }
    this.switching = this.switching.then(() => this.sync.setRelays(relays).catch(() => undefined))
    return this.switching
  }

  async close(): Promise<void> {
    await this.switching
    this.off()
    await this.sync.close()
  }
}
