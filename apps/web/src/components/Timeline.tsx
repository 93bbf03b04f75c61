import { useVirtualizer } from '@tanstack/react-virtual'
import {
  type FocusEvent,
  type KeyboardEvent,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react'
import { formatDay, sameDay } from '../lib/format'
import type { MessageItem } from '../model/types'
import { Icon } from './Icon'
import { type MessageActions, MessageRow } from './MessageRow'
import type { RevealRequest } from './SearchReveal'

type Row =
  | { type: 'day'; key: string; at: number }
  | { type: 'new'; key: 'new-line' }
  | { type: 'msg'; key: string; message: MessageItem; compact: boolean }

const COMPACT_WINDOW = 5 * 60

/** A row's height before it is measured. */
function estimateRow(row: Row | undefined): number {
  return row?.type === 'msg' ? (row.compact ? 26 : 58) : 34
}

/**
 * Rows for the list: day separators, the "new messages" line before the first message of
 * someone else after `lineAt` that is not in `seen` (the messages the reader already watched
 * arrive), and messages.
 */
export function buildRows(
  messages: readonly MessageItem[],
  lineAt: number | undefined,
  me: string,
  seen?: ReadonlySet<string>,
): Row[] {
  const rows: Row[] = []
  let prev: MessageItem | undefined
  let lineDone = lineAt === undefined
  // Messages sorting before every watched one are older pages, loaded later: never news.
  let pastSeen = !seen || seen.size === 0
  for (const m of messages) {
    let separated = false
    if (!prev || !sameDay(prev.createdAt, m.createdAt)) {
      rows.push({
        type: 'day',
        key: `day-${m.createdAt}-${m.id}`,
        at: m.createdAt,
      })
      separated = true
    }
    if (seen?.has(m.id)) pastSeen = true
    if (
      !lineDone &&
      pastSeen &&
      lineAt !== undefined &&
      m.createdAt > lineAt &&
      m.pubkey !== me &&
      !seen?.has(m.id)
    ) {
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
 * The time after which an unseen message gets the "new messages" line. Before the reader has
 * watched the end of the list, the read frontier when the group was opened. Once the messages
 * watched arrive are known (`seenNewest`, the newest second among them), any message not among
 * them from that second on, or from the frontier's second on, is news: timestamps are seconds,
 * so one that arrives out of view in the very second the reader last read is still unread to
 * them. Older pages loaded later are not among the watched but sort before that second: no line.
 */
export function lineTime(openedAt: number | undefined, seenNewest: number | undefined): number | undefined {
  if (seenNewest === undefined) return openedAt
  return Math.max(openedAt ?? 0, seenNewest) - 1
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
  /**
   * The read frontier when the group was opened: the "new messages" line goes after it. While
   * no line shows and the reader is looking at the end of the list, it follows what arrives, so
   * the line only ever marks messages that came while the tab was hidden or scrolled away.
   */
  lineAt?: number
  hasOlder: boolean
  loadingOlder: boolean
  /**
   * Why older messages cannot come now (the relay did not answer the last page back): the browser
   * is `offline`, or the `relay` is not answering. The top says so in place of "Loading older
   * messages…", and scrolling does not ask again until this clears (the relay answered the group).
   */
  olderUnavailable?: 'offline' | 'relay'
  onLoadOlder: () => void
  /** Called with the newest created_at on screen while the page is visible. */
  onSeen: (createdAt: number) => void
  actions: MessageActions
  visible: boolean
  emptyText: string
  /** A search result to scroll to and focus, once its message is in `messages`. */
  reveal?: RevealRequest
}) {
  const scrollRef = useRef<HTMLDivElement>(null)
  // Whether the reader is at the end of the list (updated on scroll).
  const atEnd = useRef(true)
  const line = useRef<{
    seen: ReadonlySet<string> | undefined
    seenNewest: number
    shown: boolean | undefined
  }>({
    seen: undefined,
    seenNewest: 0,
    shown: undefined,
  })
  // Messages that arrive while the reader watches the end are read as they come: no line for
  // them. (Ids, not times: messages of the same second may sort either way.)
  if (line.current.shown === false && props.visible && atEnd.current) {
    const seen = line.current.seen
    if (!seen || props.messages.some((m) => !seen.has(m.id))) {
      line.current.seen = new Set(props.messages.map((m) => m.id))
      line.current.seenNewest = props.messages[props.messages.length - 1]?.createdAt ?? 0
    }
  }
  const lineAt = lineTime(props.lineAt, line.current.seen ? line.current.seenNewest : undefined)
  const seen = line.current.seen
  const rows = useMemo(
    () => buildRows(props.messages, lineAt, props.me, seen),
    [props.messages, lineAt, props.me, seen],
  )
  line.current.shown = rows.some((r) => r.type === 'new')
  // Where the first paint shows the list (below): the first rows are laid out there from the
  // start, so they are rendered once, not first at the top and again after the scroll.
  const opening = useRef<{ offset: number; atEnd: boolean } | undefined>(undefined)
  if (opening.current === undefined && rows.length > 0) {
    const at = rows.findIndex((r) => r.type === 'new')
    let offset = 0
    for (let i = 0; i < (at >= 0 ? at : rows.length); i++) offset += estimateRow(rows[i])
    const height = typeof window === 'undefined' ? 0 : window.innerHeight
    opening.current =
      at >= 0 ? { offset, atEnd: false } : { offset: Math.max(0, offset - height), atEnd: true }
  }
  const [painted, setPainted] = useState(false)
  const hasRows = rows.length > 0
  useEffect(() => {
    if (painted || !hasRows) return
    const frame = requestAnimationFrame(() => setPainted(true))
    return () => cancelAnimationFrame(frame)
  }, [painted, hasRows])
  const attachScroll = useCallback((el: HTMLDivElement | null) => {
    scrollRef.current = el
    const open = opening.current
    if (el && open) el.scrollTop = open.atEnd ? el.scrollHeight : open.offset
  }, [])
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => estimateRow(rows[i]),
    initialRect: { width: 0, height: typeof window === 'undefined' ? 0 : window.innerHeight },
    initialOffset: () => opening.current?.offset ?? 0,
    getItemKey: (i) => rows[i]?.key ?? i,
    // The rows kept ready off screen come after the first paint, which they would only delay.
    overscan: painted ? 6 : 1,
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
  const lastKey = rows[rows.length - 1]?.key
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the last row changes, not only the count
  useLayoutEffect(() => {
    if (positioned.current && atEnd.current && rows.length > 0 && newIndex < 0) {
      virtualizer.scrollToIndex(rows.length - 1, { align: 'end' })
    }
  }, [rows.length, lastKey, newIndex, virtualizer])

  // Older messages when the top is near.
  const { hasOlder, loadingOlder, olderUnavailable, onLoadOlder } = props
  // Only while the relay may answer: a page it did not answer would be asked again at once, and
  // "Loading older messages…" would never leave the screen.
  const mayLoadOlder = hasOlder && !loadingOlder && !olderUnavailable
  const onScroll = useCallback(() => {
    const el = scrollRef.current
    if (!el || !positioned.current) return
    atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48
    if (el.scrollTop < 300 && mayLoadOlder) onLoadOlder()
  }, [mayLoadOlder, onLoadOlder])
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

  // Roving tabindex: the list is one Tab stop, the active message; arrows move it.
  const [activeId, setActiveId] = useState<string>()
  const msgIndexes = useMemo(() => rows.flatMap((r, i) => (r.type === 'msg' ? [i] : [])), [rows])
  const activeIndex = (() => {
    const at = activeId ? rows.findIndex((r) => r.type === 'msg' && r.message.id === activeId) : -1
    return at >= 0 ? at : (msgIndexes[msgIndexes.length - 1] ?? -1)
  })()
  const activeMounted = items.some((i) => i.index === activeIndex)
  const focusRow = useCallback(
    (index: number) => {
      const row = rows[index]
      if (row?.type !== 'msg') return
      setActiveId(row.message.id)
      virtualizer.scrollToIndex(index, { align: 'auto' })
      // The row may mount only after the scroll: try for a few frames.
      let tries = 0
      const attempt = () => {
        const el = scrollRef.current?.querySelector<HTMLElement>(`article[data-id="${row.message.id}"]`)
        if (el) el.focus({ preventScroll: tries !== 0 })
        else if (tries++ < 10) requestAnimationFrame(attempt)
      }
      attempt()
    },
    [rows, virtualizer],
  )
  // A chosen search result: scroll to it and focus it, once per request.
  const revealed = useRef<RevealRequest | undefined>(undefined)
  const { reveal } = props
  useEffect(() => {
    if (!reveal || revealed.current === reveal) return
    const index = rows.findIndex((r) => r.type === 'msg' && r.message.id === reveal.id)
    if (index < 0) return
    revealed.current = reveal
    atEnd.current = false
    focusRow(index)
  }, [reveal, rows, focusRow])
  function onListKey(e: KeyboardEvent<HTMLDivElement>) {
    const target = e.target as HTMLElement
    const article = target.closest<HTMLElement>('article.msg')
    if (!article) return
    if (target !== article) {
      // Inside a message's actions: ← → between them, Escape back to the message.
      const buttons = shownControls(article, 'button, a[href]')
      const at = buttons.indexOf(target)
      if (e.key === 'Escape') {
        e.preventDefault()
        article.focus()
      } else if ((e.key === 'ArrowRight' || e.key === 'ArrowLeft') && at >= 0) {
        e.preventDefault()
        buttons[(at + (e.key === 'ArrowRight' ? 1 : buttons.length - 1)) % buttons.length]?.focus()
      }
      return
    }
    const at = msgIndexes.indexOf(
      rows.findIndex((r) => r.type === 'msg' && r.message.id === article.dataset.id),
    )
    let to: number | undefined
    if (e.key === 'ArrowUp') to = at - 1
    else if (e.key === 'ArrowDown') to = at + 1
    else if (e.key === 'PageUp') to = at - 10
    else if (e.key === 'PageDown') to = at + 10
    else if (e.key === 'Home') to = 0
    else if (e.key === 'End') to = msgIndexes.length - 1
    else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault()
      ;(
        shownControls(article, '.msg-actions button')[0] ?? shownControls(article, 'button, a[href]')[0]
      )?.focus()
      return
    }
    if (to === undefined || e.altKey || e.ctrlKey || e.metaKey) return
    e.preventDefault()
    if (at < 0) return
    const index = msgIndexes[Math.max(0, Math.min(msgIndexes.length - 1, to))]
    if (index !== undefined) focusRow(index)
    if (to < 0 && mayLoadOlder) onLoadOlder()
  }
  function onListFocus(e: FocusEvent<HTMLDivElement>) {
    const article = (e.target as HTMLElement).closest<HTMLElement>('article.msg')
    if (article?.dataset.id && article.dataset.id !== activeId) setActiveId(article.dataset.id)
    // Tab landed on the list itself (the active message is scrolled out of the DOM): pick the
    // newest message on screen.
    if (e.target === scrollRef.current && msgIndexes.length > 0) {
      const onScreen = items.filter((i) => rows[i.index]?.type === 'msg')
      const pick = onScreen[onScreen.length - 1]?.index ?? msgIndexes[msgIndexes.length - 1]!
      focusRow(pick)
    }
  }

  return (
    <div className="timeline-wrap">
      {props.loadingOlder ? (
        <p className="loading-older" role="status">
          Loading older messages…
        </p>
      ) : hasOlder && olderUnavailable ? (
        <p className="older-unavailable" role="status" data-testid="older-unavailable">
          {olderUnavailable === 'offline'
            ? 'Can’t load older messages while offline'
            : 'Can’t load older messages: the relay is not answering'}
          {olderUnavailable === 'relay' ? (
            <button type="button" className="btn small" onClick={onLoadOlder}>
              Try again
            </button>
          ) : null}
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
        ref={attachScroll}
        className="timeline"
        onScroll={onScroll}
        role="log"
        aria-label="Messages"
        // A log speaks every row it gains: new messages are announced, summarised, elsewhere.
        aria-live="off"
        // The list is a Tab stop through its active message; only when that message is out of
        // the DOM (virtualized away) does the list itself take the stop, and hands it on.
        tabIndex={activeMounted ? -1 : 0}
        onKeyDown={onListKey}
        onFocus={onListFocus}
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
                    tabIndex={item.index === activeIndex ? 0 : -1}
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

/**
 * A message's controls that are laid out: a button the layout hides (the quick 👍 on a phone)
 * cannot take focus, so the arrows would stop on it.
 */
function shownControls(article: HTMLElement, selector: string): HTMLElement[] {
  return [...article.querySelectorAll<HTMLElement>(selector)].filter((el) => el.getClientRects().length > 0)
}
