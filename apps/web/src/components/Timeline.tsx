import { useVirtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef } from 'react'
import { formatDay, sameDay } from '../lib/format'
import type { MessageItem } from '../model/types'
import { Icon } from './Icon'
import { type MessageActions, MessageRow } from './MessageRow'

type Row =
  | { type: 'day'; key: string; at: number }
  | { type: 'new'; key: 'new-line' }
  | { type: 'msg'; key: string; message: MessageItem; compact: boolean }

const COMPACT_WINDOW = 5 * 60

/** Rows for the list: day separators, the "new messages" line at `lineAt`, and messages. */
export function buildRows(messages: readonly MessageItem[], lineAt: number | undefined, me: string): Row[] {
  const rows: Row[] = []
  let prev: MessageItem | undefined
  let lineDone = lineAt === undefined
  for (const m of messages) {
    let separated = false
    if (!prev || !sameDay(prev.createdAt, m.createdAt)) {
      rows.push({ type: 'day', key: `day-${m.createdAt}-${m.id}`, at: m.createdAt })
      separated = true
    }
    if (!lineDone && lineAt !== undefined && m.createdAt > lineAt && m.pubkey !== me) {
      rows.push({ type: 'new', key: 'new-line' })
      lineDone = true
      separated = true
    }
    const compact =
      !separated &&
      prev !== undefined &&
      prev.pubkey === m.pubkey &&
      prev.kind === m.kind &&
      m.kind !== 11 &&
      m.createdAt - prev.createdAt < COMPACT_WINDOW
    rows.push({ type: 'msg', key: m.id, message: m, compact })
    prev = m
  }
  return rows
}

/**
 * The group's timeline, virtualized (only the rows on screen are in the DOM), anchored to the
 * bottom like every chat: new messages follow when you are at the end, older ones load when
 * you scroll to the top without moving what you are reading.
 */
export function Timeline(props: {
  groupKey: string
  me: string
  messages: readonly MessageItem[]
  byId: (id: string) => MessageItem | undefined
  /** The read frontier when the group was opened: the "new messages" line goes after it. */
  lineAt?: number
  hasOlder: boolean
  loadingOlder: boolean
  onLoadOlder: () => void
  /** Called with the newest created_at on screen while the page is visible. */
  onSeen: (createdAt: number) => void
  actions: MessageActions
  visible: boolean
  emptyText: string
}) {
  const scrollRef = useRef<HTMLDivElement>(null)
  const rows = useMemo(
    () => buildRows(props.messages, props.lineAt, props.me),
    [props.messages, props.lineAt, props.me],
  )
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => (rows[i]?.type === 'msg' ? (rows[i].compact ? 26 : 58) : 34),
    getItemKey: (i) => rows[i]?.key ?? i,
    overscan: 6,
    anchorTo: 'end',
    followOnAppend: true,
  })

  // First paint: at the "new messages" line if there is one, else at the end.
  const positioned = useRef(false)
  const newIndex = rows.findIndex((r) => r.type === 'new')
  useLayoutEffect(() => {
    if (positioned.current || rows.length === 0) return
    positioned.current = true
    if (newIndex >= 0) virtualizer.scrollToIndex(newIndex, { align: 'start' })
    else virtualizer.scrollToIndex(rows.length - 1, { align: 'end' })
  }, [rows.length, newIndex, virtualizer])

  const items = virtualizer.getVirtualItems()
  const first = items[0]?.index ?? 0
  const last = items[items.length - 1]?.index ?? -1

  // Stick to the end while the reader is there (new messages, late measurements, older pages
  // arriving while the list is still shorter than the screen).
  const atEnd = useRef(true)
  const lastKey = rows[rows.length - 1]?.key
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the last row changes, not only the count
  useLayoutEffect(() => {
    if (positioned.current && atEnd.current && rows.length > 0 && newIndex < 0) {
      virtualizer.scrollToIndex(rows.length - 1, { align: 'end' })
    }
  }, [rows.length, lastKey, newIndex, virtualizer])

  // Older messages when the top is near.
  const { hasOlder, loadingOlder, onLoadOlder } = props
  const onScroll = useCallback(() => {
    const el = scrollRef.current
    if (!el || !positioned.current) return
    atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48
    if (el.scrollTop < 300 && hasOlder && !loadingOlder) onLoadOlder()
  }, [hasOlder, loadingOlder, onLoadOlder])
  useEffect(() => {
    onScroll()
  }, [onScroll])

  // Read marks for what is on screen.
  const { onSeen, visible } = props
  const el = scrollRef.current
  let newestSeen = 0
  if (el && visible) {
    const top = el.scrollTop
    const bottom = top + el.clientHeight
    for (const item of items) {
      const row = rows[item.index]
      if (row?.type === 'msg' && item.start < bottom && item.end > top) {
        newestSeen = Math.max(newestSeen, row.message.createdAt)
      }
    }
  }
  useEffect(() => {
    if (newestSeen > 0) onSeen(newestSeen)
  }, [newestSeen, onSeen])

  const jumpVisible = newIndex >= 0 && newIndex < first
  const scrollToQuoted = useCallback(
    (id: string) => {
      const index = rows.findIndex((r) => r.type === 'msg' && r.message.id === id)
      if (index >= 0) virtualizer.scrollToIndex(index, { align: 'center' })
    },
    [rows, virtualizer],
  )
  const actions = useMemo(
    () => ({ ...props.actions, onQuoteClick: scrollToQuoted }),
    [props.actions, scrollToQuoted],
  )

  return (
    <div className="timeline-wrap">
      {props.loadingOlder ? (
        <p className="loading-older" role="status">
          Loading older messages…
        </p>
      ) : null}
      {jumpVisible ? (
        <button
          type="button"
          className="btn primary small jump"
          onClick={() => virtualizer.scrollToIndex(newIndex, { align: 'start' })}
        >
          <Icon name="arrowUp" size={14} /> Jump to new messages
        </button>
      ) : null}
      <div
        ref={scrollRef}
        className="timeline"
        onScroll={onScroll}
        role="log"
        aria-label="Messages"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scroll region must be focusable to scroll by keyboard
        tabIndex={0}
        data-rows={rows.length}
        data-last={last}
      >
        {rows.length === 0 ? <p className="timeline-empty">{props.emptyText}</p> : null}
        <div className="timeline-inner" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const row = rows[item.index]!
            return (
              <div
                key={item.key as string}
                data-index={item.index}
                ref={virtualizer.measureElement}
                className="timeline-row"
                style={{ transform: `translateY(${item.start}px)` }}
              >
                {row.type === 'day' ? (
                  <div className="day">{formatDay(row.at)}</div>
                ) : row.type === 'new' ? (
                  <div className="new-line" id={`new-${props.groupKey}`}>
                    New messages
                  </div>
                ) : (
                  <MessageRow
                    message={row.message}
                    compact={row.compact}
                    quoted={row.message.replyTo ? props.byId(row.message.replyTo) : undefined}
                    actions={actions}
                  />
                )}
              </div>
            )
          })}
        </div>
      </div>
    </div>
  )
}
