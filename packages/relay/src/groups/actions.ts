import type { NostrEvent } from 'nostr-tools'

/** Moderation kinds (9000–9020 are reserved for them). */
export const MODERATION_KINDS: ReadonlySet<number> = new Set([9000, 9001, 9002, 9005, 9007, 9008, 9009, 9010])

/** True for kinds 9000–9020, the moderation range the time window applies to. */
export function isModerationKind(kind: number): boolean {
  return kind >= 9000 && kind <= 9020
}

/** A parsed moderation action. */
export type ModerationAction =
  | { kind: 9000; targets: { pubkey: string; roles: string[] }[]; code?: string }
  | { kind: 9001; targets: string[] }
  | { kind: 9002 }
  | { kind: 9005; ids: string[] }
  | { kind: 9007 }
  | { kind: 9008 }
  | { kind: 9009; codes: string[] }
  | { kind: 9010; pins: string[][] }

const HEX64 = /^[0-9a-f]{64}$/

/** Maximum number of codes in one 9009. */
export const MAX_CODES = 10

/**
 * Parses a moderation event's tags. The failure `detail` strings are pyramid's, to be sent as
 * `error: invalid moderation action: <detail>`.
 *
 * @example
 * parseAction(event9000) // { ok: true, action: { kind: 9000, targets: [{ pubkey, roles: ['admin'] }] } }
 */
export function parseAction(
  event: Pick<NostrEvent, 'kind' | 'tags'>,
): { ok: true; action: ModerationAction } | { ok: false; detail: string } {
  const tagsNamed = (n: string) => event.tags.filter((t) => t[0] === n)
  switch (event.kind) {
    case 9000:
    case 9001: {
      const ps = tagsNamed('p')
      if (ps.length === 0) return { ok: false, detail: "missing 'p' tags" }
      for (const p of ps)
        if (!HEX64.test(p[1] ?? '')) return { ok: false, detail: "'p' tag value is not a valid public key" }
      if (event.kind === 9001)
        return { ok: true, action: { kind: 9001, targets: ps.map((p) => p[1] as string) } }
      const code = tagsNamed('code')[0]?.[1]
      const targets = ps.map((p) => ({
        pubkey: p[1] as string,
        roles: [...new Set(p.slice(2).map((r) => r.trim().toLowerCase()))].filter(
          (r) => r !== '' && r !== 'member',
        ),
      }))
      return { ok: true, action: { kind: 9000, targets, ...(code !== undefined && { code }) } }
    }
    case 9002:
      return { ok: true, action: { kind: 9002 } }
    case 9005: {
      const es = tagsNamed('e')
      if (es.length === 0) return { ok: false, detail: "missing 'e' tag" }
      for (const e of es) if (!HEX64.test(e[1] ?? '')) return { ok: false, detail: 'invalid event id hex' }
      return { ok: true, action: { kind: 9005, ids: es.map((e) => e[1] as string) } }
    }
    case 9007:
      return { ok: true, action: { kind: 9007 } }
    case 9008:
      return { ok: true, action: { kind: 9008 } }
    case 9009: {
      const codes = tagsNamed('code')
        .map((c) => c[1])
        .filter((c): c is string => typeof c === 'string' && c !== '')
      if (codes.length === 0) return { ok: false, detail: "missing 'code' tags" }
      if (codes.length > MAX_CODES) return { ok: false, detail: "too many 'code' tags" }
      return { ok: true, action: { kind: 9009, codes } }
    }
    case 9010: {
      const pins = event.tags
        .filter(
          (t) =>
            (t[0] === 'e' && HEX64.test(t[1] ?? '')) ||
            (t[0] === 'a' && /^\d+:[0-9a-f]{64}:/.test(t[1] ?? '')),
        )
        .map((t) => [t[0] as string, t[1] as string])
      return { ok: true, action: { kind: 9010, pins } }
    }
    default:
      return { ok: false, detail: `event kind ${event.kind} is not a supported moderation action` }
  }
}
