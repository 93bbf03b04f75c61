import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import {
  blossomAuthTemplate,
  encodeAuthHeader,
  type ImetaFields,
  parseBlobDescriptor,
  RoostError,
} from '@roost/nip29'
import type { RelayInfo } from '../pool/nip11'
import type { Signer } from '../signers/signer'

/**
 * A Blossom server refused an upload, or could not be reached (`status` 0). `reason` is the
 * server's `X-Reason` (or its body), e.g. `uploads are for members of a group on this relay`.
 *
 * @example
 * if (err instanceof UploadError && err.status === 413) showToast('That file is too large')
 */
export class UploadError extends RoostError {
  constructor(
    /** The HTTP status, or 0 when the server could not be reached. */
    readonly status: number,
    /** The server's `X-Reason` header (or the start of its body). */
    readonly reason: string,
  ) {
    super(
      'upload-failed',
      status === 0 ? `upload failed: ${reason}` : `upload refused (${status}): ${reason}`,
    )
  }
}

/** Options of {@link uploadBlob}. */
export interface UploadOptions {
  /** The Blossom server's base URL, `https://blossom.example` (see {@link blossomServerFor}). */
  server: string
  /** Signs the kind 24242 authorization. */
  signer: Signer
  /** The file's MIME type (a `File`'s own type by default; `application/octet-stream` when none). */
  type?: string
  /** Called as bytes go out (`sent` of `total`); uses XMLHttpRequest where it exists. */
  onProgress?: (sent: number, total: number) => void
  /** Extra imeta fields measured by the caller (image `dim`, `blurhash`, `alt`). */
  extra?: Pick<ImetaFields, 'dim' | 'blurhash' | 'alt'>
  /** Seconds the authorization stays valid (default 300). */
  expiresIn?: number
  /** Unix seconds (injectable for tests). */
  now?: number
  /** Cancels the upload. */
  signal?: AbortSignal
}

/**
 * The Blossom server of a relay. A relay that serves Blossom on an origin of its own (a Roost relay
 * does, so uploads never share an origin with a web client it serves) names it in NIP-11 as
 * `roost.blossom.url`; pass the relay's NIP-11 document to use it. Without one (or without that
 * field), the relay's own HTTP origin: `wss://relay.example` → `https://relay.example`.
 *
 * @example
 * blossomServerFor('ws://127.0.0.1:7777') // 'http://127.0.0.1:7777'
 * blossomServerFor('ws://127.0.0.1:7777', await pool.relayInfo('ws://127.0.0.1:7777')) // 'http://127.0.0.1:7778'
 */
export function blossomServerFor(relayUrl: string, info?: RelayInfo): string {
  const named = mediaOriginOf(info)
  if (named !== undefined) return named
  const u = new URL(relayUrl)
  if (u.protocol === 'wss:') u.protocol = 'https:'
  else if (u.protocol === 'ws:') u.protocol = 'http:'
  return u.origin
}

/** NIP-11 `roost.blossom.url` as an http(s) origin, or `undefined`. */
function mediaOriginOf(info: RelayInfo | undefined): string | undefined {
  const roost = info?.roost
  const blossom = roost && typeof roost === 'object' ? (roost as { blossom?: unknown }).blossom : undefined
  const url = blossom && typeof blossom === 'object' ? (blossom as { url?: unknown }).url : undefined
  if (typeof url !== 'string') return undefined
  try {
    const u = new URL(url)
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : undefined
  } catch {
    return undefined
  }
}

/**
 * Uploads a file to a Blossom server (BUD-02 `PUT /upload`): hashes it locally (SHA-256), signs
 * a kind 24242 `t=upload` authorization naming that hash, sends it, checks the server stored the
 * same bytes, and returns the NIP-92 `imeta` fields (`url`, `m`, `x`, `size`, plus `extra`).
 *
 * @throws {UploadError} when the server refuses (with its status and reason), answers something
 * that is not a descriptor of this file, or cannot be reached.
 * @example
 * const server = blossomServerFor(relay, await pool.relayInfo(relay))
 * const media = await uploadBlob(file, { server, signer })
 * await group.sendMessage(media.url, { media: [media] })
 */
export async function uploadBlob(data: Blob | Uint8Array, opts: UploadOptions): Promise<ImetaFields> {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(await data.arrayBuffer())
  const x = bytesToHex(sha256(bytes))
  const fileType = typeof Blob !== 'undefined' && data instanceof Blob ? data.type : ''
  const type = (opts.type ?? fileType) || 'application/octet-stream'
  const now = opts.now ?? Math.floor(Date.now() / 1000)
  const authEvent = await opts.signer.signEvent(
    blossomAuthTemplate({
      verb: 'upload',
      sha256: x,
      createdAt: now,
      expiration: now + (opts.expiresIn ?? 300),
      content: 'Upload file',
    }),
  )
  const url = `${opts.server.replace(/\/+$/, '')}/upload`
  const headers = {
    Authorization: encodeAuthHeader(authEvent),
    'Content-Type': type,
    'X-SHA-256': x,
  }
  const answer =
    opts.onProgress !== undefined && typeof XMLHttpRequest !== 'undefined'
      ? await sendXhr(url, bytes, headers, opts.onProgress, opts.signal)
      : await sendFetch(url, bytes, headers, opts.signal)
  if (answer.status !== 200) throw new UploadError(answer.status, answer.reason || 'refused')
  let descriptor: ReturnType<typeof parseBlobDescriptor>
  try {
    descriptor = parseBlobDescriptor(JSON.parse(answer.body))
  } catch {
    throw new UploadError(answer.status, 'the server did not answer a blob descriptor')
  }
  if (descriptor.sha256 !== x || descriptor.size !== bytes.length)
    throw new UploadError(answer.status, 'the server stored other bytes than were sent')
  opts.onProgress?.(bytes.length, bytes.length)
  return { url: descriptor.url, m: type, x, size: bytes.length, ...opts.extra }
}

interface Answer {
  status: number
  reason: string
  body: string
}

async function sendFetch(
  url: string,
  bytes: Uint8Array,
  headers: Record<string, string>,
  signal: AbortSignal | undefined,
): Promise<Answer> {
  let res: Response
  try {
    res = await fetch(url, {
      method: 'PUT',
      body: bytes as Uint8Array<ArrayBuffer>,
      headers,
      ...(signal ? { signal } : {}),
    })
  } catch (err) {
    throw new UploadError(0, (err as Error).message || 'network error')
  }
  const body = await res.text().catch(() => '')
  return { status: res.status, reason: res.headers.get('x-reason') ?? body.slice(0, 200), body }
}

function sendXhr(
  url: string,
  bytes: Uint8Array,
  headers: Record<string, string>,
  onProgress: (sent: number, total: number) => void,
  signal: AbortSignal | undefined,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('PUT', url)
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v)
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : bytes.length)
    xhr.onload = () =>
      resolve({
        status: xhr.status,
        reason: xhr.getResponseHeader('x-reason') ?? xhr.responseText.slice(0, 200),
        body: xhr.responseText,
      })
    xhr.onerror = () => reject(new UploadError(0, 'network error'))
    xhr.onabort = () => reject(new UploadError(0, 'aborted'))
    signal?.addEventListener('abort', () => xhr.abort(), { once: true })
    xhr.send(bytes as Uint8Array<ArrayBuffer>)
  })
}
