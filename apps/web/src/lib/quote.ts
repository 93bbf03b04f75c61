import { parseContent } from '@roost/nip29'

/**
 * A message's quote as NIP-C7 writes it: a leading `nostr:nevent1…` (or `note1…`) link on a line
 * of its own, before the text. When the link names the event the message's `q`/`e` tags name, or
 * the message has no such tag (a client that reads and writes only the link), the quote is shown
 * once, as a quote: `text` is the content without the link. A leading link naming another event
 * stays in the text.
 *
 * @example
 * leadingQuote(`nostr:nevent1…\nyes`, [parentId]) // { id: parentId, text: 'yes' }
 */
export function leadingQuote(
  content: string,
  tagged: readonly string[],
): { id: string; text: string } | undefined {
  const first = parseContent(content)[0]
  if (first?.type !== 'event' || !first.raw.toLowerCase().startsWith('nostr:')) return undefined
  if (tagged.length > 0 && !tagged.includes(first.id)) return undefined
  return { id: first.id, text: content.slice(first.raw.length).replace(/^[ \t]*(\r?\n)?/, '') }
}

/**
 * The text of a kind 9 without the quoted event's leading link (see {@link leadingQuote}): what a
 * notification or a search result shows. Other kinds come back as they are.
 *
 * @example
 * quoteFreeText(reply) // 'yes'
 */
export function quoteFreeText(event: { kind: number; content: string; tags: string[][] }): string {
  if (event.kind !== 9) return event.content
  const tagged = event.tags
    .filter((t) => (t[0] === 'q' || t[0] === 'e') && typeof t[1] === 'string')
    .map((t) => t[1] as string)
  return leadingQuote(event.content, tagged)?.text ?? event.content
}
