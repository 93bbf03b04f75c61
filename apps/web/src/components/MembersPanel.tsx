import { type ReactNode, useState } from 'react'
import type { GroupHandle } from '../model/api'
import type { Answer, GroupDetail, Member } from '../model/types'
import { ConfirmDialog } from './ConfirmDialog'
import { AnswerNotice } from './Dialog'
import { Icon } from './Icon'
import { JoinRequests } from './JoinRequests'
import { RoleEditor, RolesList } from './MemberRoles'
import { PersonAvatar, PersonName, useDisplayName } from './Name'
import { Reports } from './Reports'

function MemberRow(props: {
  member: Member
  canRemove: boolean
  onRemove: (m: Member) => void
  me: boolean
  describe?: (role: string) => string | undefined
  /** The admin's role editor for this person. */
  tools?: ReactNode
}) {
  const m = props.member
  return (
    <li>
      <PersonAvatar pubkey={m.pubkey} size={28} />
      <span className="mname">
        <PersonName
          pubkey={m.pubkey}
          interactive
          suffix={props.me ? <span className="hint"> (you)</span> : undefined}
        />
        {m.roles.map((r) => (
          <span key={r} className="role" title={props.describe?.(r)}>
            {r}
          </span>
        ))}
      </span>
      {props.canRemove && !props.me ? (
        <button type="button" className="btn small danger" onClick={() => props.onRemove(m)}>
          Remove
        </button>
      ) : null}
      {props.me ? null : props.tools}
    </li>
  )
}

/** Admins (39001) with their roles and members (39002); admins may remove members (9001). */
export function MembersPanel(props: {
  handle: GroupHandle
  detail: GroupDetail
  me: string
  onClose: () => void
  /** The back button's name on phones, where the panel is a full-screen sheet. */
  backLabel?: string
}) {
  const d = props.detail
  const [answer, setAnswer] = useState<Answer>()
  const admins = d.members.filter((m) => m.admin)
  const members = d.members.filter((m) => !m.admin)
  const canRemove = d.me?.admin === true
  const describe = (role: string) => d.roles.find((r) => r.name === role)?.description
  const [removing, setRemoving] = useState<Member>()
  function remove(m: Member) {
    setAnswer(undefined)
    setRemoving(m)
  }
  return (
    <aside className="side" aria-labelledby="members-title">
      <div className="side-head">
        <button
          type="button"
          className="icon-btn back-btn"
          aria-label={props.backLabel ?? 'Back'}
          onClick={props.onClose}
        >
          <Icon name="back" />
        </button>
        <h2 id="members-title">People</h2>
        <button
          type="button"
          className="icon-btn close-btn"
          aria-label="Close people"
          onClick={props.onClose}
        >
          <Icon name="close" />
        </button>
      </div>
      <div className="side-body">
        <div style={{ padding: '0 16px' }}>
          <AnswerNotice answer={answer} okText="Member removed." />
        </div>
        <JoinRequests handle={props.handle} detail={d} />
        <Reports handle={props.handle} detail={d} />
        <RolesList detail={d} />
        <h3>Admins · {admins.length}</h3>
        <ul className="member-list" aria-label="Admins">
          {admins.map((m) => (
            <MemberRow
              key={m.pubkey}
              member={m}
              canRemove={canRemove}
              onRemove={remove}
              me={m.pubkey === props.me}
              describe={describe}
              tools={canRemove ? <RoleEditor handle={props.handle} detail={d} member={m} /> : undefined}
            />
          ))}
        </ul>
        <h3>Members · {d.membersKnown ? members.length : 'not published'}</h3>
        <ul className="member-list" aria-label="Members">
          {members.map((m) => (
            <MemberRow
              key={m.pubkey}
              member={m}
              canRemove={canRemove}
              onRemove={remove}
              me={m.pubkey === props.me}
              describe={describe}
              tools={canRemove ? <RoleEditor handle={props.handle} detail={d} member={m} /> : undefined}
            />
          ))}
        </ul>
      </div>
      {removing ? (
        <RemoveMemberDialog
          handle={props.handle}
          member={removing}
          groupName={d.name}
          onDone={setAnswer}
          onClose={() => setRemoving(undefined)}
        />
      ) : null}
    </aside>
  )
}

/** "Remove <name>?" once, in the app's dialog; an admin's roles go with the membership. */
function RemoveMemberDialog(props: {
  handle: GroupHandle
  member: Member
  groupName: string
  onDone: (answer: Answer) => void
  onClose: () => void
}) {
  const m = props.member
  const name = useDisplayName(m.pubkey)
  return (
    <ConfirmDialog
      title="Remove member"
      confirm={`Remove ${name}`}
      busy="Removing…"
      onClose={props.onClose}
      onConfirm={async () => {
        const answer = await props.handle.removeMember(m.pubkey)
        if (answer.ok) props.onDone(answer)
        return answer
      }}
    >
      <p>
        Remove <strong>{name}</strong> from {props.groupName}? They no longer see or write in the group.
      </p>
      {m.roles.length > 0 ? (
        <p className="notice warn">
          {name} is {m.admin ? 'an admin' : 'holds roles'} ({m.roles.join(', ')}): the roles are taken too.
        </p>
      ) : null}
    </ConfirmDialog>
  )
}
