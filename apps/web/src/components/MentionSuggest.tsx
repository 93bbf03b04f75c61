import { type KeyboardEvent, type RefObject, useId, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { useApp } from '../hooks'
import { mentionQuery, type PickedMention } from '../lib/compose'
import { shortNpub } from '../lib/format'
import { cleanName } from '../lib/names'
import { npubSuffix, PersonAvatar } from './Name'
import { usePeople } from './people-store'
import './mentions.css'

const MAX = 8

interface Candidate {
  pubkey: string
  name: string
  /** Someone else in the group has the same name: the npub's end tells them apart, as in the timeline. */
  suffix?: string
}

/**
 * `@` in the composer: while an `@word` is being typed, a listbox offers the people in `people`
 * (members and recent authors) whose name matches; ArrowUp/ArrowDown move, Enter or Tab picks,
 * Escape closes. A pick writes `@Name` into the draft and adds who it names to the draft's picks,
 * so the draft is sent with a `nostr:npub…` there (`prepareDraft`).
 */
export function useMentionSuggest(opts: {
  people: readonly string[]
  draft: string
  /** The people picked so far (kept with the draft). */
  picked: readonly PickedMention[]
  setDraft: (text: string, picked: PickedMention[]) => void
  textarea: RefObject<HTMLTextAreaElement | null>
}) {
  const app = useApp()
  const clashes = usePeople()?.clashes
  const id = useId()
  const [query, setQuery] = useState<{ start: number; query: string; caret: number }>()
  const [active, setActive] = useState(0)
  /** Where the caret goes once the picked name is in the box. */
  const caretAfterPick = useRef<number | undefined>(undefined)
  // Placed in the render that follows a pick, as soon as the new text is in the DOM and before the
  // next key is handled: a frame later, a fast typist's next letter had already gone in and the
  // caret jumped back before it.
  useLayoutEffect(() => {
    const caret = caretAfterPick.current
    const el = opts.textarea.current
    if (caret === undefined || !el) return
    caretAfterPick.current = undefined
    el.focus()
    el.setSelectionRange(caret, caret)
  })

  const candidates = useMemo((): Candidate[] => {
    if (!query) return []
    const q = query.query.toLowerCase()
    const scored: { c: Candidate; score: number }[] = []
    const nameOf = (pubkey: string) => cleanName(app.profile(pubkey)?.name ?? '') || shortNpub(pubkey)
    // A name two candidates share clashes here as in the timeline (the people in view).
    const seen = new Map<string, number>()
    for (const pubkey of opts.people) seen.set(nameOf(pubkey), (seen.get(nameOf(pubkey)) ?? 0) + 1)
    for (const pubkey of opts.people) {
      const name = nameOf(pubkey)
      const lower = name.toLowerCase()
      const score = lower.startsWith(q) ? 0 : lower.includes(q) ? 1 : -1
      const clash = (seen.get(name) ?? 0) > 1 || (clashes?.has(name) ?? false)
      if (score >= 0)
        scored.push({ c: { pubkey, name, ...(clash ? { suffix: npubSuffix(pubkey) } : {}) }, score })
    }
    scored.sort(
      (a, b) =>
        a.score - b.score ||
        a.c.name.localeCompare(b.c.name) ||
        (a.c.suffix ?? '').localeCompare(b.c.suffix ?? ''),
    )
    return scored.slice(0, MAX).map((s) => s.c)
  }, [query, opts.people, app, clashes])

  const open = query !== undefined && candidates.length > 0

  /** Re-reads the `@word` at the caret after an edit or a caret move. */
  function update(text: string, caret: number | null) {
    const q = caret === null ? undefined : mentionQuery(text, caret)
    setQuery(q && caret !== null ? { ...q, caret } : undefined)
    setActive(0)
  }

  function pick(c: Candidate) {
    if (!query) return
    // Two people of one name get two labels, so each pick keeps its own person.
    const label = c.suffix ? `@${c.name}…${c.suffix}` : `@${c.name}`
    const before = opts.draft.slice(0, query.start)
    const after = opts.draft.slice(query.caret)
    const text = `${before}${label} ${after.replace(/^ /, '')}`
    opts.setDraft(text, [...opts.picked.filter((x) => x.label !== label), { label, pubkey: c.pubkey }])
    setQuery(undefined)
    caretAfterPick.current = before.length + label.length + 1
  }

  /** Handles the list's keys; true when the key was used. */
  function onKey(e: KeyboardEvent<HTMLTextAreaElement>): boolean {
    if (!open) return false
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault()
      const n = candidates.length
      setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : n - 1)) % n)
      return true
    }
    if ((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') {
      e.preventDefault()
      const c = candidates[Math.min(active, candidates.length - 1)]
      if (c) pick(c)
      return true
    }
    if (e.key === 'Escape') {
      e.preventDefault()
      setQuery(undefined)
      return true
    }
    return false
  }

  const optionId = (i: number) => `${id}-opt-${i}`
  const list = open ? (
    <div className="mention-list" role="listbox" id={`${id}-list`} aria-label="People to mention">
      {candidates.map((c, i) => (
        <div
          key={c.pubkey}
          id={optionId(i)}
          role="option"
          tabIndex={-1}
          aria-selected={i === active}
          className={i === active ? 'active' : undefined}
          onMouseDown={(e) => {
            e.preventDefault()
            pick(c)
          }}
        >
          <PersonAvatar pubkey={c.pubkey} size={20} />
          <bdi>{c.name}</bdi>
          {c.suffix ? (
            <span className="npub-suffix" data-testid="npub-suffix">
              {' '}
              …{c.suffix}
            </span>
          ) : null}
        </div>
      ))}
    </div>
  ) : null

  return {
    list,
    update,
    onKey,
    /** Closes the list (after a send). */
    reset: () => setQuery(undefined),
    inputProps: {
      'aria-autocomplete': 'list' as const,
      'aria-controls': open ? `${id}-list` : undefined,
      'aria-activedescendant': open ? optionId(Math.min(active, candidates.length - 1)) : undefined,
    },
  }
}
