import { useId, useState } from 'react'
import type { GroupHandle } from '../model/api'
import type { Answer, GroupDetail, Member } from '../model/types'
import './community.css'
import { AnswerNotice } from './Dialog'

/** The roles the relay defines (39003), with their descriptions. */
export function RolesList(props: { detail: GroupDetail }) {
  const roles = props.detail.roles
  if (roles.length === 0) return null
  return (
    <section className="roles-list" aria-labelledby="roles-title">
      <h3 id="roles-title">Roles · {roles.length}</h3>
      <dl>
        {roles.map((r) => (
          <div key={r.name}>
            <dt>{r.name}</dt>
            <dd>{r.description ?? 'No description.'}</dd>
          </div>
        ))}
      </dl>
    </section>
  )
}

/**
 * An admin's editor of one person's roles: a checkbox per role the relay defines (and any the
 * person holds), saved as a 9000 with the roles; the relay's answer is shown.
 */
export function RoleEditor(props: { handle: GroupHandle; detail: GroupDetail; member: Member }) {
  const m = props.member
  const [open, setOpen] = useState(false)
  const [chosen, setChosen] = useState<string[]>(m.roles)
  const [answer, setAnswer] = useState<Answer>()
  const [busy, setBusy] = useState(false)
  const id = useId()
  const names = [...new Set([...props.detail.roles.map((r) => r.name), ...m.roles])]
  const describe = (name: string) => props.detail.roles.find((r) => r.name === name)?.description
  if (!open)
    return (
      <button
        type="button"
        className="btn small"
        onClick={() => {
          setChosen(m.roles)
          setAnswer(undefined)
          setOpen(true)
        }}
      >
        Roles…
      </button>
    )
  async function save() {
    setBusy(true)
    setAnswer(await props.handle.setRoles(m.pubkey, chosen))
    setBusy(false)
  }
  return (
    <fieldset className="role-editor" aria-labelledby={id}>
      <legend id={id}>Roles</legend>
      {names.map((name) => (
        <label key={name} title={describe(name)}>
          <input
            type="checkbox"
            checked={chosen.includes(name)}
            onChange={(e) =>
              setChosen((c) => (e.target.checked ? [...c, name] : c.filter((x) => x !== name)))
            }
          />{' '}
          {name}
        </label>
      ))}
      <div className="row">
        <button type="button" className="btn small primary" disabled={busy} onClick={save}>
          Save roles
        </button>
        <button type="button" className="btn small" onClick={() => setOpen(false)}>
          Done
        </button>
      </div>
      <AnswerNotice answer={answer} />
    </fieldset>
  )
}
