/**
 * Names from other people (kind 0 display names, group names) must not rearrange the text around
 * them: bidirectional overrides, embeddings, isolates and marks are removed, as are other control
 * characters; what is left is rendered in `<bdi>` / `dir="auto"` so its direction stays its own.
 */

/** U+061C, U+200E/F, U+202A–202E (embeddings, overrides), U+2066–2069 (isolates). */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const OTHER_CONTROLS = /[\u0000-\u001F\u007F-\u009F]/g

/**
 * A name safe to show: bidi and other control characters removed, whitespace collapsed, trimmed.
 * @example cleanName('\u202Egnp.exe') // 'gnp.exe'
 */
export function cleanName(name: string): string {
  return name.replace(BIDI_CONTROLS, '').replace(OTHER_CONTROLS, ' ').replace(/\s+/g, ' ').trim()
}
