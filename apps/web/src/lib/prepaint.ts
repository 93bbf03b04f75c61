/**
 * The pre-paint: what the user saw of a group when they left the page, kept in localStorage and
 * put back on screen by the page's first script on the next load, before the app's bundle has
 * even been evaluated (`src/prepaint/boot.ts`); the app takes over from it
 * (`src/prepaint/keep.ts`). Here: the record, when it may be shown, and how its HTML is made inert
 * before it touches the live document.
 *
 * The HTML came from our own DOM, but it is read back from storage, which anything running on the
 * origin could have written: it is parsed in a document without a browsing context (nothing
 * loads or runs there), and only markup that shows something survives (no scripts, styles,
 * frames, forms' targets, event handlers, or URLs other than http(s) and same-document ones).
 */

/** The localStorage key of the record. */
export const PREPAINT_KEY = 'roost.prepaint.v1'
/** A record larger than this (in UTF-16 code units, as localStorage counts) is not kept. */
export const PREPAINT_MAX_CHARS = 512 * 1024
/** The container the pre-paint is shown in, beside `#root`. */
export const PREPAINT_ID = 'prepaint'
/** Marks an element of the saved HTML that was scrolled: `top` and distance from the end, px. */
export const SCROLL_ATTR = 'data-prepaint-scroll'
/**
 * Within this of its end a list counts as at the end (the timeline's own measure): the copy is
 * shown at the end, where the app opens it, whatever the height of the window now.
 */
export const AT_END_PX = 48

export interface PrepaintRecord {
  v: 1
  /** The page's address without its origin: path, query and the group's hash route. */
  url: string
  /** The account that saw it. */
  pubkey: string
  /** {@link widthClass} of the window it was laid out in. */
  width: string
  /** The app's view (`#root`'s children), serialized. */
  html: string
}

/**
 * The layout a width gets: the phone layout or the wide one, and the exact width, since text
 * wraps differently at another width and the saved rows' heights would no longer fit.
 */
export function widthClass(width: number, phone: boolean): string {
  return `${phone ? 'phone' : 'wide'}:${Math.round(width)}`
}

/** The record in storage, if it is one. */
export function parseRecord(raw: string | null | undefined): PrepaintRecord | undefined {
  if (!raw || raw.length > PREPAINT_MAX_CHARS) return undefined
  try {
    const r = JSON.parse(raw) as Partial<PrepaintRecord> | null
    if (
      r?.v !== 1 ||
      typeof r.url !== 'string' ||
      typeof r.pubkey !== 'string' ||
      !/^[0-9a-f]{64}$/.test(r.pubkey) ||
      typeof r.width !== 'string' ||
      typeof r.html !== 'string'
    )
      return undefined
    return r as PrepaintRecord
  } catch {
    return undefined
  }
}

/** Serializes a record, or undefined when it would be too large to keep. */
export function serializeRecord(record: PrepaintRecord): string | undefined {
  const raw = JSON.stringify(record)
  return raw.length > PREPAINT_MAX_CHARS ? undefined : raw
}

/**
 * Whether a record may be shown on this load: the same address (a group's route), the same
 * signed-in account, the same layout width.
 */
export function recordMatches(
  record: PrepaintRecord,
  now: { url: string; pubkey: string | undefined; width: string },
): boolean {
  return (
    isGroupUrl(record.url) &&
    record.url === now.url &&
    now.pubkey !== undefined &&
    record.pubkey === now.pubkey &&
    record.width === now.width
  )
}

/** An address of a group's view (`…#/g/<key>`). */
export function isGroupUrl(url: string): boolean {
  return /#\/g\/[^/]/.test(url)
}

/** Elements dropped whole, with everything in them. */
const DROPPED = new Set([
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'noscript',
  'template',
  'link',
  'meta',
  'base',
  'portal',
  'dialog',
  'slot',
  // SVG that runs or sets attributes over time (an `<animate>` can set an href).
  'animate',
  'animatemotion',
  'animatetransform',
  'set',
  'foreignobject',
  'use',
])

/** Attributes whose value is a URL: kept only for http(s), or a same-document `#…`. */
const URL_ATTRS = new Set([
  'href',
  'src',
  'xlink:href',
  'poster',
  'background',
  'cite',
  'longdesc',
  'data',
  'codebase',
])

/** Attributes dropped always: handlers aside, ones that act on load or reach into the live page. */
const DROPPED_ATTRS = new Set([
  'id',
  'name',
  'for',
  'form',
  'srcset',
  // A form in the copy (the message box) shows, but has nowhere to go.
  'action',
  'formaction',
  'method',
  'target',
  'formtarget',
  'srcdoc',
  'ping',
  'autofocus',
  'contenteditable',
  'popover',
  'popovertarget',
  'is',
  'nonce',
  'integrity',
])

/**
 * `javascript:` or `vbscript:` anywhere in a value, whatever whitespace or control characters
 * (U+0000–U+0020, which URL parsing ignores) are slipped between its letters: one pass of the
 * regular expression engine over the value, not a copy of it built a character at a time.
 */
const SCRIPT_URL = new RegExp(
  `(?:${['java', 'vb']
    .map((w) => [...w].join('[\\x00-\\x20]*'))
    .join('|')})[\\x00-\\x20]*${[...'script:'].join('[\\x00-\\x20]*')}`,
  'i',
)

function safeUrl(value: string, base: string): boolean {
  const v = value.trim()
  if (v.startsWith('#')) return true
  try {
    const u = new URL(v, base)
    return u.protocol === 'https:' || u.protocol === 'http:'
  } catch {
    return false
  }
}

/**
 * Parses saved HTML inertly and returns it as a fragment of `target` with everything that could
 * run, load anything but images over http(s), or clash with the live page taken out.
 *
 * @example container.append(sanitizeHtml(document, record.html, location.href))
 */
export function sanitizeHtml(target: Document, html: string, base: string): DocumentFragment {
  // A parsed document has no browsing context: its scripts never run and nothing in it loads.
  const parsed = new DOMParser().parseFromString(`<!doctype html><body>${html}`, 'text/html')
  const body = parsed.body
  const walk = (el: Element) => {
    for (const child of [...el.children]) {
      const tag = child.localName.toLowerCase()
      // Custom elements too: one the app defines later would come to life in the copy.
      if (DROPPED.has(tag) || tag.includes('-')) {
        child.remove()
        continue
      }
      for (const attr of [...child.attributes]) {
        const name = attr.name.toLowerCase()
        if (
          name.startsWith('on') ||
          DROPPED_ATTRS.has(name) ||
          (URL_ATTRS.has(name) && !safeUrl(attr.value, base)) ||
          // `javascript:` hidden anywhere else (an SVG's `values`, a `style`'s url()).
          SCRIPT_URL.test(attr.value)
        )
          child.removeAttribute(attr.name)
      }
      walk(child)
    }
  }
  walk(body)
  // Moved, not copied: the parsed document is thrown away.
  const fragment = target.createDocumentFragment()
  fragment.append(...body.childNodes)
  return fragment
}

/**
 * The keys the signed-in account is read from before the app runs: the remembered session
 * (`model/session.ts`) and the account whose cache the last start opened, with its pubkey
 * (`model/boot-store.ts`; both cleared at sign-out).
 */
export const ACCOUNT_KEYS = { session: 'roost.session.v1', boot: 'roost.boot.v1' } as const

/** The signed-in account's pubkey as the page's first script can know it, if any. */
export function signedInAccount(storage: Pick<Storage, 'getItem'>): string | undefined {
  try {
    if (!storage.getItem(ACCOUNT_KEYS.session)) return undefined
    const pubkey = (JSON.parse(storage.getItem(ACCOUNT_KEYS.boot) ?? 'null') as { pubkey?: unknown } | null)
      ?.pubkey
    return typeof pubkey === 'string' && /^[0-9a-f]{64}$/.test(pubkey) ? pubkey : undefined
  } catch {
    return undefined
  }
}

/**
 * Forgets the kept view, so nothing of it is painted again (sign-out, a group left or removed).
 *
 * @example forgetPrepaint(localStorage)
 */
export function forgetPrepaint(storage: Pick<Storage, 'removeItem'> | undefined): void {
  try {
    storage?.removeItem(PREPAINT_KEY)
  } catch {
    // Nothing kept to forget.
  }
}
