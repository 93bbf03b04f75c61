import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer } from 'ws'
import { Engine } from './engine'
import type { GroupState } from './groups/record'
import { snapshot } from './groups/record'
import { handleHttp } from './http'
import { LIMITS } from './limits'
import type { RelayOptions } from './options'
import { defaultVerifier } from './verify'

/**
 * Options of {@link RelayHandle.createGroup}.
 *
 * @example
 * await relay.createGroup({ id: 'design', name: 'Design', closed: true, admins: [alice], members: [bob] })
 */
export interface CreateGroupOptions {
  id?: string
  name?: string
  about?: string
  picture?: string
  private?: boolean
  closed?: boolean
  restricted?: boolean
  hidden?: boolean
  /** Pubkeys given the `admin` role. */
  admins?: string[]
  /** Pubkeys added as plain members. */
  members?: string[]
  supportedKinds?: number[]
}

/**
 * A running relay.
 *
 * @example
 * const relay = await startRelay()
 * relay.url // 'ws://127.0.0.1:41234'
 * relay.state('general')?.members
 */
export interface RelayHandle {
  /** `ws://127.0.0.1:PORT` */
  url: string
  /** The key that signs 39000–39005 and relay-made 9000/9001 (NIP-11 `self`). */
  pubkey: string
  /** NIP-11 `pubkey`: the same key, or a separate owner key in the pyramid and zooid profiles. */
  ownerPubkey: string
  /** Closes every connection, the server and the database. */
  close(): Promise<void>
  /** A snapshot of a group's state, or undefined when there is no such group. */
  state(groupId: string): GroupState | undefined
  /** Creates a group as the relay (relay-signed 9007, 9002, 9000s); resolves to its id. */
  createGroup(opts: CreateGroupOptions): Promise<string>
  /** Adds a single-use invite code (relay-signed 9009); resolves to the code. */
  createInvite(groupId: string, code?: string): Promise<string>
  /** What `demo: true` seeded, when it did. */
  demo?: DemoInfo
}

/**
 * The demo seed: group ids, the `design` invite code and the demo users' public keys.
 *
 * @example
 * (await startRelay({ demo: true })).demo?.invite // 'a1b2c3d4e5f6'
 */
export interface DemoInfo {
  groups: string[]
  invite: string
  users: { name: string; pubkey: string }[]
}

/** How often connections are pinged, seconds; one missed pong closes them. */
const HEARTBEAT_S = 30

/**
 * Starts a relay. Resolves once it listens.
 *
 * @example
 * const relay = await startRelay({ port: 0 })
 * const groupId = await relay.createGroup({ name: 'Pizza', closed: true })
 * const code = await relay.createInvite(groupId)
 * await relay.close()
 */
export async function startRelay(opts: RelayOptions = {}): Promise<RelayHandle> {
  const engine = new Engine({ ...opts, verifyEvent: opts.verifyEvent ?? (await defaultVerifier()) })
  const server: Server = createServer((req, res) => handleHttp(engine, req, res))
  const wss = new WebSocketServer({ server, maxPayload: LIMITS.maxMessageLength * 4 })
  wss.on('connection', (ws, req) => engine.attach(ws, req))
  wss.on('error', () => {})
  const host = opts.host ?? '127.0.0.1'
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(opts.port ?? 0, host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (err) {
    engine.db.close()
    throw err
  }
  const port = (server.address() as AddressInfo).port
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host
  engine.url = `ws://${urlHost}:${port}`
  let demo: DemoInfo | undefined
  if (opts.demo) {
    const { seedDemo } = await import('./demo')
    demo = seedDemo(engine)
  }
  const heartbeat = setInterval(() => engine.heartbeat(), (opts.heartbeat ?? HEARTBEAT_S) * 1000)
  heartbeat.unref()
  let closing: Promise<void> | undefined
  const handle: RelayHandle = {
    url: engine.url,
    pubkey: engine.pubkey,
    ownerPubkey: engine.ownerPubkey,
    state: (id) => {
      const g = engine.groups.get(id)
      return g ? snapshot(g) : undefined
    },
    createGroup: async (o) => engine.createGroup(o),
    createInvite: async (id, code) => engine.createInvite(id, code),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        clearInterval(heartbeat)
        for (const c of engine.connections) c.ws.terminate()
        wss.close(() => {
          server.close(() => {
            engine.db.close()
            resolve()
          })
          server.closeAllConnections()
        })
      })
      return closing
    },
    ...(demo && { demo }),
  }
  return handle
}
