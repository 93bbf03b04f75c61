import { foldSearchText } from '@roost/nip29'
import { type KeyboardEvent, useMemo, useState } from 'react'
import { inRankOrder, type TwinVerdict } from '../lib/lookalike'
import type { GroupSummary } from '../model/types'
import { Dialog } from './Dialog'
import { TwinMark } from './Lookalike'
import './quick-switcher.css'
import { useGroupTwins } from './useGroupTwins'

/** Groups whose name (or id) has the typed text, names starting with it first; diacritics and case ignored. */
export function switcherMatches(groups: readonly GroupSummary[], text: string): GroupSummary[] {
  const q = foldSearchText(text.trim())
  if (!q) return [...groups]
  const scored: [number, GroupSummary][] = []
  for (const g of groups) {
    const name = foldSearchText(g.name || g.id)
    const at = name.indexOf(q)
    const wordStart = name.split(/\s+/).some((w) => w.startsWith(q))
    if (at === 0) scored.push([0, g])
    else if (wordStart) scored.push([1, g])
    else if (at > 0 || foldSearchText(g.id).includes(q)) scored.push([2, g])
  }
  return scored.sort((a, b) => a[0] - b[0]).map(([, g]) => g)
}

/**
 * The quick switcher (Ctrl/Cmd+K): type part of a group's name, ↑/↓ to choose, Enter to open,
 * Escape to close. Groups whose names look alike show their ids, the original first.
 */
export function QuickSwitcher(props: {
  groups: readonly GroupSummary[]
  onOpen: (key: string) => void
  onClose: () => void
}) {
  const [text, setText] = useState('')
  const [active, setActive] = useState(0)
  const twins = useGroupTwins(props.groups)
  // Groups whose names look alike: the original first among them, each with its id.
  const found = useMemo(
    () => inRankOrder(switcherMatches(props.groups, text), (g) => g.key, twins),
    [props.groups, text, twins],
  )
  const current = Math.min(active, Math.max(0, found.length - 1))
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      const step = e.key === 'ArrowDown' ? 1 : -1
      if (found.length > 0) setActive((current + step + found.length) % found.length)
    } else if (e.key === 'Enter') {
      e.preventDefault()
      const g = found[current]
      if (g) props.onOpen(g.key)
    }
  }
  const optionId = (i: number) => `switcher-option-${i}`
  return (
    <Dialog title="Switch to a group" onClose={props.onClose}>
      <input
        className="switcher-input"
        type="text"
        role="combobox"
        aria-label="Group name"
        aria-expanded="true"
        aria-controls="switcher-list"
        aria-activedescendant={found.length > 0 ? optionId(current) : undefined}
        placeholder="Type a group name"
        value={text}
        onChange={(e) => {
          setText(e.target.value)
          setActive(0)
        }}
        onKeyDown={onKey}
      />
      <div className="switcher-list" id="switcher-list" role="listbox" aria-label="Groups">
        {found.map((g, i) => (
          <div
            key={g.key}
            id={optionId(i)}
            role="option"
            tabIndex={-1}
            aria-selected={i === current}
            className={
              i === current ? 'listbox-option switcher-option active' : 'listbox-option switcher-option'
            }
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => props.onOpen(g.key)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') props.onOpen(g.key)
            }}
          >
            <bdi dir="auto">{g.name || g.id}</bdi>
            {twins.has(g.key) ? (
              <TwinMark id={g.id} twin={twins.get(g.key) as TwinVerdict} relay={g.relay} />
            ) : null}
            {g.unread > 0 ? <span className="switcher-unread">{g.unread}</span> : null}
          </div>
        ))}
        {found.length === 0 ? <p className="switcher-empty">No group has that name</p> : null}
      </div>
    </Dialog>
  )
}
