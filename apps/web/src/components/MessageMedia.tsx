import type { ImetaFields } from '@roost/nip29'
import { decode } from 'blurhash'
import { useEffect, useRef, useState } from 'react'
import { hostOf } from '../lib/media-hosts'
import { safeHttpUrl, tokenize } from '../lib/safe-url'
import type { MessageItem } from '../model/types'
import { Icon } from './Icon'
import { useMayLoad } from './media-consent'
import './message-media.css'

/** Widest an inline image is drawn, CSS pixels; taller images are scaled to keep their ratio. */
const MAX_W = 360
const MAX_H = 320

/** Bare links of a message looked at for images: a message of thousands of URLs costs no more. */
const MAX_BARE_LINKS = 20

/** The attachments of a message: its imeta files, plus bare image links in its text. */
export function mediaOf(m: Pick<MessageItem, 'content' | 'media'>): ImetaFields[] {
  const listed = (m.media ?? []).filter((f) => safeHttpUrl(f.url) !== undefined)
  const known = new Set(listed.map((f) => f.url))
  const bare = tokenize(m.content, MAX_BARE_LINKS)
    .filter((t) => t.type === 'link' && t.image && !known.has(t.href))
    .map((t) => ({ url: (t as { href: string }).href }))
  return [...listed, ...bare]
}

/** The message text without the URLs its attachments already show. */
export function textWithoutMedia(m: Pick<MessageItem, 'content' | 'media'>): string {
  let text = m.content
  for (const f of mediaOf(m)) text = text.split(f.url).join('')
  return text.trim()
}

function isImage(f: ImetaFields): boolean {
  if (f.m) return f.m.startsWith('image/') && f.m !== 'image/svg+xml'
  return /\.(png|jpe?g|gif|webp|avif)(\?|#|$)/i.test(f.url)
}

/** The drawn size: the imeta `dim` scaled into the box, so the row never jumps when it loads. */
function boxOf(f: ImetaFields): { width: number; height: number } | undefined {
  if (!f.dim) return undefined
  const scale = Math.min(1, MAX_W / f.dim.width, MAX_H / f.dim.height)
  return {
    width: Math.max(1, Math.round(f.dim.width * scale)),
    height: Math.max(1, Math.round(f.dim.height * scale)),
  }
}

function Blurhash(props: { hash: string; width: number; height: number }) {
  const ref = useRef<HTMLCanvasElement>(null)
  useEffect(() => {
    const canvas = ref.current
    const ctx = canvas?.getContext('2d')
    if (!canvas || !ctx) return
    try {
      const pixels = decode(props.hash, 32, 32)
      const img = ctx.createImageData(32, 32)
      img.data.set(pixels)
      ctx.putImageData(img, 0, 0)
    } catch {
      // an undecodable hash leaves the plain placeholder
    }
  }, [props.hash])
  return <canvas ref={ref} width={32} height={32} className="media-blur" />
}

function InlineImage(props: { file: ImetaFields; auto: boolean; tabIndex?: number }) {
  const f = props.file
  const [clicked, setClicked] = useState(false)
  const [failed, setFailed] = useState(false)
  const [loaded, setLoaded] = useState(false)
  const box = boxOf(f)
  const style = box ? { width: box.width, height: box.height } : undefined
  const label = f.alt || 'Image'
  if (!props.auto && !clicked) {
    return (
      <div className="media-image gated" style={style} data-testid="media-gated">
        {f.blurhash && box ? <Blurhash hash={f.blurhash} width={box.width} height={box.height} /> : null}
        <button
          type="button"
          className="btn small"
          tabIndex={props.tabIndex}
          onClick={() => setClicked(true)}
        >
          Load image from {hostOf(f.url)}
        </button>
      </div>
    )
  }
  if (failed) return <FileChip file={f} tabIndex={props.tabIndex} />
  return (
    <a
      className="media-image"
      href={f.url}
      target="_blank"
      rel="noopener noreferrer nofollow ugc"
      style={style}
      tabIndex={props.tabIndex}
    >
      {f.blurhash && box && !loaded ? (
        <Blurhash hash={f.blurhash} width={box.width} height={box.height} />
      ) : null}
      <img
        src={f.url}
        alt={label}
        width={box?.width}
        height={box?.height}
        loading="lazy"
        referrerPolicy="no-referrer"
        onLoad={() => setLoaded(true)}
        onError={() => setFailed(true)}
      />
    </a>
  )
}

function formatSize(bytes: number | undefined): string {
  if (bytes === undefined) return ''
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

function fileName(url: string): string {
  try {
    const last = new URL(url).pathname.split('/').pop()
    return last ? decodeURIComponent(last) : url
  } catch {
    return url
  }
}

function FileChip(props: { file: ImetaFields; tabIndex?: number }) {
  const f = props.file
  return (
    <a
      className="file-chip"
      href={f.url}
      target="_blank"
      rel="noopener noreferrer nofollow ugc"
      download
      tabIndex={props.tabIndex}
      data-testid="file-chip"
    >
      <span className="file-icon" aria-hidden="true">
        <Icon name="file" />
      </span>
      <span className="file-name">{fileName(f.url)}</span>
      <span className="file-meta">{[f.m, formatSize(f.size)].filter(Boolean).join(' · ')}</span>
    </a>
  )
}

/**
 * A message's files: images inline at their imeta size (a placeholder of that size until they
 * load, so nothing jumps), other files as a chip. Images from the user's own Blossom servers and
 * from hosts the user allowed load at once; from any other host only after a click, unless
 * Settings allows all.
 */
export function MessageMedia(props: { message: MessageItem; tabIndex?: number }) {
  const mayLoad = useMayLoad()
  const files = mediaOf(props.message)
  if (files.length === 0) return null
  return (
    <div className="media">
      {files.map((f) =>
        isImage(f) ? (
          <InlineImage key={f.url} file={f} auto={mayLoad(f.url)} tabIndex={props.tabIndex} />
        ) : (
          <FileChip key={f.url} file={f} tabIndex={props.tabIndex} />
        ),
      )}
    </div>
  )
}
