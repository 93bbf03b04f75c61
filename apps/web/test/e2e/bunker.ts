/**
 * A small NIP-46 remote signer ("bunker") for the e2e suite: it listens on the test relay for
 * kind 24133 requests addressed to its key, answers connect, get_public_key, sign_event,
 * nip44_encrypt/decrypt and ping with NIP-44 encrypted responses, and keeps the user's key in the
 * test process, as a real bunker keeps it on another device.
 */
import { type EventTemplate, finalizeEvent, generateSecretKey, getPublicKey, nip44 } from 'nostr-tools'
import { Relay, useWebSocketImplementation as setWebSocketImplementation } from 'nostr-tools/relay'
import WebSocket from 'ws'

setWebSocketImplementation(WebSocket)

export interface Bunker {
  url: string
  userPubkey: string
  methods: string[]
  close(): void
}

export async function startBunker(relayUrl: string): Promise<Bunker> {
  const userSk = generateSecretKey()
  const signerSk = generateSecretKey()
  const signerPk = getPublicKey(signerSk)
  const secret = 'e2e-secret'
  const methods: string[] = []
  const relay = await Relay.connect(relayUrl)

  const answer = (method: string, params: string[]): string => {
    switch (method) {
      case 'connect':
        if (params[1] !== secret) throw new Error('wrong secret')
        return 'ack'
      case 'get_public_key':
        return getPublicKey(userSk)
      case 'sign_event':
        return JSON.stringify(finalizeEvent(JSON.parse(params[0]!) as EventTemplate, userSk))
      case 'nip44_encrypt':
        return nip44.encrypt(params[1]!, nip44.getConversationKey(userSk, params[0]!))
      case 'nip44_decrypt':
        return nip44.decrypt(params[1]!, nip44.getConversationKey(userSk, params[0]!))
      case 'ping':
        return 'pong'
      default:
        throw new Error(`unsupported method ${method}`)
    }
  }

  const sub = relay.subscribe(
    [{ kinds: [24133], '#p': [signerPk], since: Math.floor(Date.now() / 1000) - 5 }],
    {
      onevent(event) {
        const key = nip44.getConversationKey(signerSk, event.pubkey)
        const request = JSON.parse(nip44.decrypt(event.content, key)) as {
          id: string
          method: string
          params: string[]
        }
        methods.push(request.method)
        let body: { id: string; result?: string; error?: string }
        try {
          body = { id: request.id, result: answer(request.method, request.params) }
        } catch (err) {
          body = { id: request.id, error: String(err) }
        }
        const response = finalizeEvent(
          {
            kind: 24133,
            created_at: Math.floor(Date.now() / 1000),
            tags: [['p', event.pubkey]],
            content: nip44.encrypt(JSON.stringify(body), key),
          },
          signerSk,
        )
        void relay.publish(response).catch(() => undefined)
      },
    },
  )

  return {
    url: `bunker://${signerPk}?relay=${encodeURIComponent(relayUrl)}&secret=${secret}`,
    userPubkey: getPublicKey(userSk),
    methods,
    close() {
      sub.close()
      relay.close()
    },
  }
}
