/** The text around the first word of the query, so the match shows even in a long message. */
export function snippet(text: string, query: string, width = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  const word = query.trim().split(/\s+/)[0]?.toLowerCase() ?? ''
  const at = word ? flat.toLowerCase().indexOf(word) : -1
  if (flat.length <= width) return flat
  const start = Math.max(0, Math.min(at - 40, flat.length - width))
  return `${start > 0 ? '…' : ''}${flat.slice(start, start + width)}${start + width < flat.length ? '…' : ''}`
}
