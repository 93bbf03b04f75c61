import { useEffect, useId, useState } from 'react'
import { useApp, useAppSnapshot } from '../hooks'
import type { Answer, BrowseEntry } from '../model/types'
import { Avatar } from './Avatar'
import { AnswerNotice } from './Dialog'
import { JoinDialog } from './JoinDialog'
import { TwinFacts, TwinWarning } from './Lookalike'

/**
 * A relay's public groups (`{"kinds":[39000]}`), each joinable in one click. Groups whose names
 * look alike come in rank order, the original first; each shows its id, age and members, and the
 * others a warning (`lib/lookalike.ts`). Groups the relay's lists (39001/39002) already name the
 * user in say so and open in one click (someone the operator or an admin added never asked to
 * join, and may not have them in their list yet).
 */
export function BrowseView(props: { onOpen: (key: string) => void; title?: string }) {
  const app = useApp()
  const snap = useAppSnapshot()
  const [relay, setRelay] = useState(snap.relays[0] ?? '')
  const [entries, setEntries] = useState<BrowseEntry[]>()
  const [error, setError] = useState<string>()
  const [answers, setAnswers] = useState<Record<string, Answer>>({})
  const [busy, setBusy] = useState<string>()
  // A closed group asks for the invite code first: the join dialog, on this group.
  const [asking, setAsking] = useState<BrowseEntry>()
  const id = useId()

  useEffect(() => {
    let live = true
    setEntries(undefined)
    setError(undefined)
    app.browse(relay).then(
      (list) => live && setEntries(list),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    )
    return () => {
      live = false
    }
  }, [app, relay])

  async function join(entry: BrowseEntry) {
    setBusy(entry.id)
    // For a group the user is already in, the request only adds it to their list (`duplicate:`).
    const answer = await app.join(`${entry.relay}'${entry.id}`)
    setBusy(undefined)
    setAnswers((a) => ({ ...a, [entry.id]: answer }))
    if (answer.key && answer.ok) props.onOpen(answer.key)
  }

  return (
    <section className="page" aria-labelledby={`${id}-title`}>
      <div className="row">
        <h2 id={`${id}-title`} style={{ flex: 1 }}>
          {props.title ?? 'Browse groups'}
        </h2>
        <label htmlFor={id} className="visually-hidden">
          Relay
        </label>
        <select
          id={id}
          value={relay}
          onChange={(e) => setRelay(e.target.value)}
          style={{ padding: 8, borderRadius: 8 }}
        >
          {snap.relays.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </div>
      {error ? (
        <p className="notice error" role="alert">
          {error}
        </p>
      ) : null}
      {!entries && !error ? <p className="hint">Asking the relay…</p> : null}
      {entries && entries.length === 0 ? <p className="hint">This relay lists no public groups.</p> : null}
      <NotListed entries={entries} />
      <ul className="cards" aria-label="Groups on this relay">
        {entries?.map((g) => (
          <li key={g.id} className={g.twin?.warning ? 'card twin' : 'card'}>
            <div className="title">
              <Avatar name={g.name} seed={`${g.relay}'${g.id}`} picture={g.picture} size={36} square />
              <bdi className="name">{g.name}</bdi>
            </div>
            {g.twin ? <TwinFacts id={g.id} origin={g.origin} twin={g.twin} /> : null}
            <div className="chips" style={{ marginLeft: 0 }}>
              {g.closed ? <span className="chip">closed</span> : <span className="chip">open</span>}
              {g.private ? <span className="chip">private</span> : null}
              {g.role ? (
                <span className="chip mine">
                  {g.role === 'admin' ? 'you are an admin' : 'you are a member'}
                </span>
              ) : null}
            </div>
            {g.twin ? <TwinWarning name={g.name} twin={g.twin} /> : null}
            <p>{g.about || 'No description.'}</p>
            <AnswerNotice answer={answers[g.id]} />
            <div className="row end">
              {g.joined ? (
                <button type="button" className="btn" onClick={() => props.onOpen(`${g.relay}'${g.id}`)}>
                  Open
                </button>
              ) : g.role ? (
                <button
                  type="button"
                  className="btn primary"
                  onClick={() => join(g)}
                  disabled={busy === g.id}
                  aria-label={`Open ${g.name}${g.twin ? ` (id ${g.id})` : ''}`}
                >
                  {busy === g.id ? 'Opening…' : 'Open'}
                </button>
              ) : (
                <button
                  type="button"
                  className="btn primary"
                  onClick={() => (g.closed ? setAsking(g) : join(g))}
                  disabled={busy === g.id}
                  aria-label={`${g.closed ? 'Request to join' : 'Join'} ${g.name}${g.twin ? ` (id ${g.id})` : ''}`}
                >
                  {busy === g.id ? 'Joining…' : g.closed ? 'Request to join' : 'Join'}
                </button>
              )}
            </div>
          </li>
        ))}
      </ul>
      {asking ? (
        <JoinDialog
          initial={`${asking.relay}'${asking.id}`}
          onClose={() => setAsking(undefined)}
          onJoined={(key) => {
            setAsking(undefined)
            props.onOpen(key)
          }}
        />
      ) : null}
    </section>
  )
}

/** Groups the relay's lists name the user in that are not in their list (the sidebar) yet. */
function NotListed(props: { entries: BrowseEntry[] | undefined }) {
  const mine = props.entries?.filter((g) => g.role && !g.joined) ?? []
  if (mine.length === 0) return null
  const names = mine.map((g) => g.name)
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
  return (
    <p className="notice" role="status">
      You are already in {list} on this relay: open {mine.length === 1 ? 'it' : 'them'} to add{' '}
      {mine.length === 1 ? 'it' : 'them'} to your groups.
    </p>
  )
}
