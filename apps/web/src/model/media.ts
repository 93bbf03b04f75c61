/**
 * Uploads from the browser: images are measured (`dim`) and get a BlurHash from a downscaled
 * canvas before the file goes to Blossom through `@roost/client`'s `uploadBlob`.
 */
import { blossomServerFor, type RelayInfo, type Signer, uploadBlob } from '@roost/client'
import type { ImetaFields } from '@roost/nip29'
import { encode } from 'blurhash'

/** The longest side of the canvas the BlurHash is computed on: cheap, and enough for a placeholder. */
const HASH_SIDE = 32

/** Size and BlurHash of an image file; empty when the browser cannot decode it. */
export async function measureImage(file: Blob): Promise<Pick<ImetaFields, 'dim' | 'blurhash'>> {
  if (typeof createImageBitmap === 'undefined') return {}
  let bitmap: ImageBitmap
  try {
    bitmap = await createImageBitmap(file)
  } catch {
    return {}
  }
  const dim = { width: bitmap.width, height: bitmap.height }
  try {
    const scale = HASH_SIDE / Math.max(dim.width, dim.height, 1)
    const w = Math.max(1, Math.round(dim.width * Math.min(1, scale)))
    const h = Math.max(1, Math.round(dim.height * Math.min(1, scale)))
    const canvas = document.createElement('canvas')
    canvas.width = w
    canvas.height = h
    const ctx = canvas.getContext('2d')
    if (!ctx) return { dim }
    ctx.drawImage(bitmap, 0, 0, w, h)
    const pixels = ctx.getImageData(0, 0, w, h).data
    return { dim, blurhash: encode(pixels, w, h, Math.min(4, w), Math.min(3, h)) }
  } catch {
    return { dim }
  } finally {
    bitmap.close()
  }
}

/** Uploads `file` to the Blossom server `server`, returning the imeta fields for the message. */
export async function uploadFile(
  file: File,
  signer: Signer,
  server: string,
  onProgress?: (sent: number, total: number) => void,
): Promise<ImetaFields> {
  const extra = file.type.startsWith('image/') ? await measureImage(file) : {}
  return uploadBlob(file, {
    server,
    signer,
    ...(file.type ? { type: file.type } : {}),
    extra,
    ...(onProgress ? { onProgress } : {}),
  })
}

/**
 * Where each relay serves its Blossom: a Roost relay names an origin of its own in NIP-11
 * (`roost.blossom.url`), away from the page's, so uploads go there and its images load without a
 * click. Learned once per relay; a relay that could not be asked is asked again next time.
 *
 * @example
 * const media = new MediaServers((r) => fetchRelayInfo(r, fetch, 5000), render)
 * media.learn(['ws://127.0.0.1:7777']) // later: media.known() → { 'ws://127.0.0.1:7777': 'http://127.0.0.1:7778' }
 */
export class MediaServers {
  private readonly found = new Map<string, string>()
  private readonly asking = new Map<string, Promise<string>>()
  private view: Record<string, string> = {}

  constructor(
    private readonly info: (relay: string) => Promise<RelayInfo | undefined>,
    private readonly onChange: () => void,
  ) {}

  /** The media origins learned so far, by relay URL (a stable object until one is added). */
  known(): Readonly<Record<string, string>> {
    return this.view
  }

  /** Asks the relays not asked yet (or whose answer failed) where their media is. */
  learn(relays: Iterable<string>): void {
    for (const relay of relays) void this.serverFor(relay).catch(() => undefined)
  }

  /** The Blossom server of `relay`: the origin its NIP-11 names, else its own HTTP origin. */
  serverFor(relay: string): Promise<string> {
    const known = this.found.get(relay)
    if (known !== undefined) return Promise.resolve(known)
    let asking = this.asking.get(relay)
    if (!asking) {
      asking = this.info(relay)
        .catch(() => undefined)
        .then((info) => {
          this.asking.delete(relay)
          const server = blossomServerFor(relay, info)
          if (info !== undefined) {
            this.found.set(relay, server)
            this.view = { ...this.view, [relay]: server }
            this.onChange()
          }
          return server
        })
      this.asking.set(relay, asking)
    }
    return asking
  }
}
