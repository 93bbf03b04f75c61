import type { Filter } from 'nostr-tools'
import type { ProfilePolicy } from '../profiles'
import { type GroupRecord, PRIVILEGED_ROLES } from './record'
import { canSee, isScoped, type Reader } from './visibility'

/**
 * What a reader may not see, as lists the SQL applies (built by {@link GroupIndex.view} from the
 * visibility rule): rows of `hideAll` groups are left out, except their kind 9000/9001 naming one of `readers`
 * when the group is in `naming`; kind 39000 rows are left out when their group is in `hide39000`;
 * rows of the staff-only kinds (`STAFF_ONLY_KINDS`) of a group are left out unless the group is in
 * `staffOf` or one of `readers` wrote them (no `staffOf`: the reader sees them all).
 */
export interface ReadView {
  readonly hideAll: readonly string[]
  readonly hide39000: readonly string[]
  readonly naming: readonly string[]
  readonly readers: readonly string[]
  readonly staffOf?: readonly string[]
}

/** True when some reader may not see everything of this group (rule 29 looks at these flags only). */
function restricts(g: GroupRecord): boolean {
  return !g.deleted && (g.private || g.hidden || g.closed)
}

/** The keys holding a role that may carry moderation power in the group (the profile decides which do). */
function staffKeys(g: GroupRecord | undefined): string[] {
  if (!g || g.deleted) return []
  return Object.keys(g.members).filter((pk) =>
    (g.members[pk] ?? []).some((r) => (PRIVILEGED_ROLES as readonly string[]).includes(r.toLowerCase())),
  )
}

/** Views kept per index version: one per kind of reader and filter, so a flood of REQs builds one. */
const CACHED_VIEWS = 64

/**
 * The groups whose content not every reader may see (private, hidden or closed), with their
 * members, and the staff of every group (who sees its join requests, invite codes and reports):
 * what a store keeps so a query can leave out, in its SQL, the rows a reader may not see (see
 * {@link GroupIndex.view}). Stores call {@link GroupIndex.set} whenever a committed group record
 * changes.
 *
 * @example
 * const index = new GroupIndex()
 * index.set('secret', record) // a private group
 * index.view({ authed: new Set(), relayKey }, {}, policy).hideAll // ['secret']
 */
export class GroupIndex {
  private readonly restricted = new Map<string, GroupRecord>()
  /** pubkey → the restricted groups it is a member of. */
  private readonly memberOf = new Map<string, Set<string>>()
  /** Groups with staff, and pubkey → the groups where it holds a privileged role. */
  private readonly staffed = new Map<string, GroupRecord>()
  private readonly staffOf = new Map<string, Set<string>>()
  private readonly views = new Map<string, ReadView>()
  /** Bumped by every change; the cached views belong to {@link viewsOf}. */
  private changes = 0
  private viewsOf = 0

  /** The committed record of group `id` is now `g` (undefined: dropped). */
  set(id: string, g: GroupRecord | undefined): void {
    const staffBefore = staffKeys(this.staffed.get(id))
    const staffNow = staffKeys(g)
    if (staffBefore.length > 0 || staffNow.length > 0) {
      this.changes++
      for (const pk of staffBefore) this.staffOf.get(pk)?.delete(id)
      for (const pk of staffNow) {
        const set = this.staffOf.get(pk) ?? new Set<string>()
        set.add(id)
        this.staffOf.set(pk, set)
      }
      if (g && staffNow.length > 0) this.staffed.set(id, g)
      else this.staffed.delete(id)
    }
    const old = this.restricted.get(id)
    const now = g && restricts(g) ? g : undefined
    if (old === undefined && now === undefined) return
    this.changes++
    if (old) for (const pk of Object.keys(old.members)) this.memberOf.get(pk)?.delete(id)
    if (now) {
      this.restricted.set(id, now)
      for (const pk of Object.keys(now.members)) {
        const set = this.memberOf.get(pk) ?? new Set<string>()
        set.add(id)
        this.memberOf.set(pk, set)
      }
    } else this.restricted.delete(id)
  }

  /** How many groups restrict some reader. */
  get size(): number {
    return this.restricted.size
  }

  /**
   * What this reader may not see for this filter, as the lists a store's SQL applies: the same
   * answers as {@link canSee} gives row by row (it is asked once per group and kind of row).
   * A filter naming its groups by `#h` only considers those groups (its rows belong to them).
   */
  view(reader: Reader, filter: Filter, policy: ProfilePolicy): ReadView {
    if (reader.authed.has(reader.relayKey)) return EMPTY
    const broad = !isScoped(filter)
    const named = filter['#h'] && !filter.ids ? filter['#h'] : undefined
    if (named) return this.build(named, reader, filter, policy)
    if (this.viewsOf !== this.changes) {
      this.views.clear()
      this.viewsOf = this.changes
    }
    const key = `${broad ? 'b' : 's'}${[...reader.authed].sort().join(',')}`
    let view = this.views.get(key)
    if (!view) {
      view = this.build(this.restricted.keys(), reader, filter, policy)
      if (this.views.size >= CACHED_VIEWS) this.views.delete(this.views.keys().next().value as string)
      this.views.set(key, view)
    }
    return view
  }

  private build(ids: Iterable<string>, reader: Reader, filter: Filter, policy: ProfilePolicy): ReadView {
    const named = filter['#h'] && !filter.ids ? new Set(filter['#h']) : undefined
    // The groups where the reader holds a privileged role, kept where the rule shows it a report.
    const staffOf = new Set<string>()
    for (const pk of reader.authed)
      for (const id of this.staffOf.get(pk) ?? []) {
        const g = this.staffed.get(id)
        if (g && (!named || named.has(id)) && canSee({ kind: 1984, grp: id }, g, reader, filter, policy))
          staffOf.add(id)
      }
    const mine = new Set<string>()
    for (const pk of reader.authed) for (const id of this.memberOf.get(pk) ?? []) mine.add(id)
    const naming = [...reader.authed].map((pk) => ['p', pk])
    const hideAll: string[] = []
    const hide39000: string[] = []
    const namingOk: string[] = []
    for (const id of new Set(ids)) {
      const g = this.restricted.get(id)
      if (!g || mine.has(id)) continue
      if (!canSee({ kind: 39000 }, g, reader, filter, policy)) hide39000.push(id)
      if (canSee({ kind: 9 }, g, reader, filter, policy)) continue
      hideAll.push(id)
      if (naming.length > 0 && canSee({ kind: 9000, tags: naming }, g, reader, filter, policy))
        namingOk.push(id)
    }
    return { hideAll, hide39000, naming: namingOk, readers: [...reader.authed], staffOf: [...staffOf] }
  }
}

/** The relay key's view: nothing left out. */
const EMPTY: ReadView = { hideAll: [], hide39000: [], naming: [], readers: [] }

/**
 * A map of committed group records (or of entries holding one) that keeps a {@link GroupIndex}
 * current as records are set and deleted: a store's record cache, indexed without a call at each
 * place it changes.
 *
 * @example
 * const records = new IndexedRecords(index, (r: GroupRecord) => r)
 * records.set('secret', record) // index.set('secret', record)
 */
export class IndexedRecords<V> extends Map<string, V> {
  constructor(
    private readonly index: GroupIndex,
    private readonly recordOf: (value: V) => GroupRecord,
  ) {
    super()
  }
  override set(id: string, value: V): this {
    // Called by Map's constructor before the fields exist (never with entries here).
    this.index?.set(id, this.recordOf(value))
    return super.set(id, value)
  }
  override delete(id: string): boolean {
    this.index.set(id, undefined)
    return super.delete(id)
  }
}
