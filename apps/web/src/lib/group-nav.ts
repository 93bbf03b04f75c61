/** The groups Alt+↑/↓ walks through, in sidebar order. */
export interface NavGroup {
  key: string
  unread: number
  access: { status: string }
}

/**
 * The group Alt+↑/↓ (`direction` -1 or 1) moves to from `current`: the neighbour in sidebar
 * order, stopping at the ends. With `unreadOnly` (Alt+Shift), the nearest member group with
 * unread messages in that direction, wrapping around; undefined when there is none.
 */
export function nextGroup(
  groups: readonly NavGroup[],
  current: string | undefined,
  direction: -1 | 1,
  unreadOnly: boolean,
): string | undefined {
  if (groups.length === 0) return undefined
  const at = current === undefined ? -1 : groups.findIndex((g) => g.key === current)
  if (!unreadOnly) {
    if (at < 0) return (direction > 0 ? groups[0] : groups[groups.length - 1])?.key
    return groups[Math.min(groups.length - 1, Math.max(0, at + direction))]?.key
  }
  const n = groups.length
  const from = at < 0 ? (direction > 0 ? -1 : n) : at
  for (let step = 1; step <= n; step++) {
    const g = groups[(((from + direction * step) % n) + n) % n]!
    if (g.key !== current && g.unread > 0 && g.access.status === 'member') return g.key
  }
  return undefined
}
