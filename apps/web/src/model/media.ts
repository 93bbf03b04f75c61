/**
 * Uploads from the browser: images are measured (`dim`) and get a BlurHash from a downscaled
 * canvas before the file goes to Blossom through `@roost/client`'s `uploadBlob`.
 */
import { type Signer, uploadBlob } from '@roost/client'
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
