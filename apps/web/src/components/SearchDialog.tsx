import { type KeyboardEvent, useEffect, useMemo, useRef, useState } from 'react'
import { useApp, useAppSnapshot } from '../hooks'
import { formatDay, formatTime } from '../lib/format'
import type { TwinVerdict } from '../lib/lookalike'
import { cleanName } from '../lib/names'
import { snippet } from '../lib/search-snippet'
import type { SearchResult } from '../model/search'
import { Dialog } from './Dialog'
import { TwinMark } from './Lookalike'
import { useDisplayName } from './Name'
import './search.css'
import { useGroupTwins } from './useGroupTwins'

function ResultRow(props: {
  r: SearchResult
  query: string
  showGroup: boolean
  twin?: TwinVerdict
  where?: { id: string; relay: string }
}) {
  const name = useDisplayName(props.r.pubkey)
  const r = props.r
  return (
    <>
      <span className="search-meta">
        <bdi className="search-author">{name}</bdi>
        {props.showGroup ? (
          <>
            {' in '}
            <bdi className="search-group">{cleanName(r.groupName) || r.group}</bdi>
            {props.twin && props.where ? (
              <>
                {' '}
                <TwinMark id={props.where.id} twin={props.twin} relay={props.where.relay} />
              </>
            ) : null}
          </>
        ) : null}
        <time className="search-time" dateTime={new Date(r.createdAt * 1000).toISOString()}>
          {formatDay(r.createdAt)} {formatTime(r.createdAt)}
        </time>
      </span>
      <bdi dir="auto" className="search-text">
        {snippet(r.text, props.query)}
      </bdi>
    </>
  )
}

/**
 * Message search (the header's search button, `/` or Ctrl/Cmd+Shift+F): in this group or across
 * every group, newest first; ↑/↓ to choose, Enter to open the message in its group, Escape to close.
 */
export function SearchDialog(props: {
  /** The open group, searched by default; absent: all groups. */
  groupKey?: string
  onOpen: (result: SearchResult) => void
  onClose: () => void
}) {
  const app = useApp()
  const groups = useAppSnapshot().groups
  // Results from groups whose names look alike carry the group's id (⚠ on the look-alike).
  const twins = useGroupTwins(groups)
  const groupIds = useMemo(() => new Map(groups.map((g) => [g.key, { id: g.id, relay: g.relay }])), [groups])
  const [text, setText] = useState('')
  const [scope, setScope] = useState<'group' | 'all'>(props.groupKey ? 'group' : 'all')
  const [results, setResults] = useState<SearchResult[]>([])
  const [status, setStatus] = useState<'idle' | 'searching' | 'done'>('idle')
  const [error, setError] = useState<string>()
  const [active, setActive] = useState(0)
  const seq = useRef(0)
  const inGroup = scope === 'group' && props.groupKey !== undefined ? props.groupKey : undefined

  useEffect(() => {
    const mine = ++seq.current
    if (!text.trim()) {
      setResults([])
      setStatus('idle')
      setError(undefined)
      return
    }
    setStatus('searching')
    // This device's cache answers at once, on every keystroke; the relays, asked once typing
    // pauses, add what the cache lacks (their answer replaces the cache's, keeping the chosen row).
    let full = false
    app.search(text, inGroup, { cacheOnly: true }).then((answer) => {
      if (mine !== seq.current || full || !answer.ok) return
      setResults(answer.results)
      setActive(0)
    })
    const timer = setTimeout(async () => {
      const answer = await app.search(text, inGroup)
      if (mine !== seq.current) return // a newer query is under way
      full = true
      const next = answer.ok ? answer.results : []
      const chosen = chosenId.current
      setResults(next)
      setActive(Math.max(0, chosen === undefined ? 0 : next.findIndex((r) => r.id === chosen)))
      setError(answer.ok ? undefined : answer.message)
      setStatus('done')
    }, 200)
    return () => clearTimeout(timer)
  }, [app, text, inGroup])

  const current = Math.min(active, Math.max(0, results.length - 1))
  const chosenId = useRef<string | undefined>(undefined)
  chosenId.current = results[current]?.id
  const optionId = (i: number) => `search-option-${i}`
  useEffect(() => {
    document.getElementById(`search-option-${current}`)?.scrollIntoView({ block: 'nearest' })
  }, [current])
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      const step = e.key === 'ArrowDown' ? 1 : -1
      if (results.length > 0) setActive((current + step + results.length) % results.length)
    } else if (e.key === 'Enter') {
      e.preventDefault()
      const r = results[current]
      if (r) props.onOpen(r)
    }
  }
  return (
    <Dialog title="Search messages" onClose={props.onClose} wide>
      <input
        className="search-input"
        type="text"
        role="combobox"
        aria-label="Search messages"
        aria-expanded="true"
        aria-controls="search-results"
        aria-activedescendant={results.length > 0 ? optionId(current) : undefined}
        placeholder="Words to find"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKey}
      />
      {props.groupKey ? (
        <fieldset className="search-scope">
          <legend className="visually-hidden">Where to search</legend>
          <label>
            <input
              type="radio"
              name="search-scope"
              checked={scope === 'group'}
              onChange={() => setScope('group')}
            />{' '}
            This group
          </label>
          <label>
            <input
              type="radio"
              name="search-scope"
              checked={scope === 'all'}
              onChange={() => setScope('all')}
            />{' '}
            All groups
          </label>
        </fieldset>
      ) : null}
      <div className="search-list" id="search-results" role="listbox" aria-label="Results">
        {results.map((r, i) => (
          <div
            key={r.id}
            id={optionId(i)}
            role="option"
            tabIndex={-1}
            aria-selected={i === current}
            className={i === current ? 'listbox-option search-option active' : 'listbox-option search-option'}
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => props.onOpen(r)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') props.onOpen(r)
            }}
          >
            <ResultRow
              r={r}
              query={text}
              showGroup={inGroup === undefined}
              twin={twins.get(r.group)}
              where={groupIds.get(r.group)}
            />
          </div>
        ))}
      </div>
      <p className="search-status" role="status">
        {error
          ? error
          : status === 'searching'
            ? 'Searching…'
            : status === 'done'
              ? results.length === 0
                ? 'No messages found'
                : `${results.length} ${results.length === 1 ? 'message' : 'messages'}`
              : ''}
      </p>
    </Dialog>
  )
}
