/**
 * Groups that share a name, or look as if they did ("General", "Genera1", "Gеneral" with a
 * Cyrillic е): which one a newcomer most likely means, and what tells them apart. Pure: the facts
 * come from the relay (`model/group-origins.ts`); what each fact is worth is explained in the
 * web README ("Look-alike groups").
 */
import { cleanName } from './names'

/** What a client can check about where a group came from. */
export interface GroupOrigin {
  /** Its creation event (9007) is signed by the relay's own key: only the relay's operator can make that. */
  byOperator: boolean
  /**
   * When it was created, as the relay vouches for it: its own 9007's time, or a member's 9007
   * accepted only within the relay's advertised `created_at_lower_limit` (NIP-11).
   */
  createdAt?: number
  /** The creator's own 9007 time on a relay that takes backdated events: shown, never ranked. */
  claimedAt?: number
  /** Members in the relay's 39002. Throwaway keys can join an open group, so it only breaks ties. */
  members?: number
}

/** How one group of a look-alike set compares with the others. */
export interface TwinVerdict {
  /** The name's skeleton (see {@link nameSkeleton}). */
  skeleton: string
  /** The groups it is ranked with: those of this skeleton on the same relay (`scope`). */
  set: string
  size: number
  /** A look-alike lives on another relay: the relay is part of what tells them apart. */
  elsewhere: boolean
  /** 0 for the one shown first. */
  rank: number
  /** This is the one the facts point to (made by the operator, the oldest, or the largest). */
  original: boolean
  /** Another group of the set is the original: this one gets a warning, and why. */
  warning?: 'operator' | 'older' | 'members'
  /** No fact tells the set apart: every one of them gets the id and a plain note. */
  undecided: boolean
}

/** Letters that look like Latin ones in common fonts (Cyrillic, Greek, digits), as Latin. */
const CONFUSABLE: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  і: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  α: 'a',
  β: 'b',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  '0': 'o',
  '1': 'l',
  '|': 'l',
  ı: 'i',
}

/**
 * The form two names share when a reader could take one for the other: cleaned (`cleanName`),
 * compatibility-folded (NFKD: 𝐆 and Ｇ are G), without marks, case, spaces or punctuation, capital
 * I as l, look-alike Cyrillic and Greek letters and digits as Latin, "rn" as "m", "vv" as "w".
 * A name of nothing but symbols is its own skeleton.
 * @example nameSkeleton('Gеneral') === nameSkeleton('general') // true (a Cyrillic е)
 * @example nameSkeleton('Genera1') === nameSkeleton('General') // true
 */
export function nameSkeleton(name: string): string {
  const clean = cleanName(name)
  const folded = clean
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/I/g, 'l')
    .toLowerCase()
    .replace(/[\p{P}\p{Z}\p{S}\p{C}]/gu, '')
  const latin = [...folded].map((c) => CONFUSABLE[c] ?? c).join('')
  const skeleton = latin.replace(/rn/g, 'm').replace(/vv/g, 'w')
  return skeleton || clean
}

/**
 * The first difference between two origins, best first; 0 when no fact tells them apart. Dates
 * and member counts count only when every group of the set has one (`use`): a group whose 9007
 * its relay hides (a private group, to non-members) is not "newer" than a copy whose date shows,
 * and comparing by whatever each pair happens to know would not even be an order.
 */
function compareOrigins(
  a: GroupOrigin | undefined,
  b: GroupOrigin | undefined,
  use: { dates: boolean; members: boolean },
): [number, TwinVerdict['warning']] {
  if ((a?.byOperator ?? false) !== (b?.byOperator ?? false)) return [a?.byOperator ? -1 : 1, 'operator']
  const at = a?.createdAt ?? 0
  const bt = b?.createdAt ?? 0
  if (use.dates && at !== bt) return [at - bt, 'older']
  const am = a?.members ?? 0
  const bm = b?.members ?? 0
  if (use.members && am !== bm) return [bm - am, 'members']
  return [0, undefined]
}

/**
 * For every group whose name looks like another's in `items`: its rank in that set and whether it
 * is the original or gets a warning. Groups with a name of their own are not in the map. Only
 * groups of one `scope` (relay) are ranked against each other: "made by the relay" and a relay's
 * clock mean nothing about another relay, whose operator may be the one copying.
 *
 * @example
 * const v = judgeLookalikes(
 *   [{ key: 'a', name: 'General', origin: { byOperator: true } }, { key: 'b', name: 'General', origin: { byOperator: false } }],
 * )
 * v.get('b')?.warning // 'operator'
 */
export function judgeLookalikes(
  items: readonly { key: string; name: string; origin?: GroupOrigin; scope?: string }[],
): Map<string, TwinVerdict> {
  const bySkeleton = new Map<string, { key: string; origin?: GroupOrigin; scope: string }[]>()
  for (const item of items) {
    const s = nameSkeleton(item.name)
    const list = bySkeleton.get(s) ?? []
    list.push({ ...item, scope: item.scope ?? '' })
    bySkeleton.set(s, list)
  }
  const out = new Map<string, TwinVerdict>()
  for (const [skeleton, all] of bySkeleton) {
    if (all.length < 2) continue
    const scopes = new Set(all.map((i) => i.scope))
    for (const scope of scopes) {
      const list = all.filter((i) => i.scope === scope)
      judgeSet(out, skeleton, `${scope}\n${skeleton}`, list, scopes.size > 1)
    }
  }
  return out
}

/** Ranks the look-alikes of one relay (`list`, possibly one alone when its twins are elsewhere). */
function judgeSet(
  out: Map<string, TwinVerdict>,
  skeleton: string,
  set: string,
  list: { key: string; origin?: GroupOrigin }[],
  elsewhere: boolean,
): void {
  const use = {
    dates: list.every((i) => i.origin?.createdAt !== undefined),
    members: list.every((i) => i.origin?.members !== undefined),
  }
  const ranked = [...list].sort(
    (a, b) => compareOrigins(a.origin, b.origin, use)[0] || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  )
  const first = ranked[0] as { key: string; origin?: GroupOrigin }
  // The first is the original only when no other group ties with it on every fact used.
  const decided =
    ranked.slice(1).every((i) => compareOrigins(first.origin, i.origin, use)[0] !== 0) && ranked.length > 1
  ranked.forEach((item, rank) => {
    const why = rank > 0 && decided ? compareOrigins(first.origin, item.origin, use)[1] : undefined
    out.set(item.key, {
      skeleton,
      set,
      size: list.length,
      elsewhere,
      rank,
      original: decided && rank === 0,
      ...(why ? { warning: why } : {}),
      undecided: !decided && list.length > 1,
    })
  })
}

/**
 * `items` with each look-alike set in rank order, in the places the set held: everything else
 * keeps its position (a search or switcher ranking stays as it was around them).
 * @example inRankOrder(['x', 'fake', 'y', 'real'], (k) => k, verdicts) // ['x', 'real', 'y', 'fake']
 */
export function inRankOrder<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  verdicts: Map<string, TwinVerdict>,
): T[] {
  const out = [...items]
  const bySet = new Map<string, number[]>()
  items.forEach((item, i) => {
    const v = verdicts.get(keyOf(item))
    if (!v) return
    const places = bySet.get(v.set) ?? []
    places.push(i)
    bySet.set(v.set, places)
  })
  for (const places of bySet.values()) {
    const members = places
      .map((i) => items[i] as T)
      .sort((a, b) => (verdicts.get(keyOf(a))?.rank ?? 0) - (verdicts.get(keyOf(b))?.rank ?? 0))
    places.forEach((place, j) => {
      out[place] = members[j] as T
    })
  }
  return out
}
