/**
 * Per-group notification levels, kept on this device (localStorage, one entry per account):
 * `all` (count badge, tab title, a desktop notification per message), `mentions` (the mention
 * badge; the plain count only in grey; title and notifications only for mentions) and `muted` (no count badge; mentions still get
 * their badge, the title and a notification).
 */
import type { GroupSummary, NotifyLevel } from './types'

const LEVELS: readonly NotifyLevel[] = ['all', 'mentions', 'muted']

function storageKey(pubkey: string): string {
  return `roost.notify.${pubkey}`
}

/** The levels saved for an account; anything unreadable is dropped. */
export function loadNotifyLevels(pubkey: string): Record<string, NotifyLevel> {
  const out: Record<string, NotifyLevel> = {}
  try {
    const raw: unknown = JSON.parse(localStorage.getItem(storageKey(pubkey)) ?? '{}')
    if (raw && typeof raw === 'object' && !Array.isArray(raw))
      for (const [key, level] of Object.entries(raw))
        if (LEVELS.includes(level as NotifyLevel)) out[key] = level as NotifyLevel
  } catch {
    // A damaged entry means the defaults.
  }
  return out
}

/** Saves the levels (only the non-default ones). */
export function saveNotifyLevels(pubkey: string, levels: Record<string, NotifyLevel>): void {
  const kept = Object.fromEntries(Object.entries(levels).filter(([, l]) => l !== 'all'))
  try {
    localStorage.setItem(storageKey(pubkey), JSON.stringify(kept))
  } catch {
    // Storage full or refused: the level lasts for this session.
  }
}

/** Whether a new message in a group at `level` raises a desktop notification. */
export function notifies(level: NotifyLevel, mentionsMe: boolean): boolean {
  return mentionsMe || level === 'all'
}

/** The count badge a group shows (the strong one): only at `all`. */
export function countBadge(group: Pick<GroupSummary, 'unread' | 'notify'>): number {
  return group.notify === 'all' ? group.unread : 0
}

/** The grey count of a `mentions` group: its unread messages, shown without asking for attention. */
export function quietBadge(group: Pick<GroupSummary, 'unread' | 'notify'>): number {
  return group.notify === 'mentions' ? group.unread : 0
}

/** The number in the tab title: unread messages of `all` groups, mentions of the others. */
export function titleCount(
  groups: readonly Pick<GroupSummary, 'unread' | 'mentions' | 'notify' | 'access'>[],
): number {
  let n = 0
  for (const g of groups) {
    if (g.access.status !== 'member') continue
    n += g.notify === 'all' ? g.unread : g.mentions
  }
  return n
}
