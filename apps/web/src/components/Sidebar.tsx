import { type CSSProperties, type Ref, useState } from 'react'
import { useApp, useAppSnapshot } from '../hooks'
import { treeOrder } from '../lib/group-tree'
import type { TwinVerdict } from '../lib/lookalike'
import { countBadge, quietBadge } from '../model/notify-levels'
import type { Access, GroupSummary } from '../model/types'
import { Avatar } from './Avatar'
import './community.css'
import { Icon } from './Icon'
import { TwinMark } from './Lookalike'
import { PersonAvatar, PersonName } from './Name'
import { MentionBadge, MutedMark } from './NotifyMenu'
import { useGroupTwins } from './useGroupTwins'

/** How a group's access state reads in the sidebar, or undefined for a plain member. */
export function accessLabel(access: Access): string | undefined {
  switch (access.status) {
    case 'member':
      return undefined
    case 'pending':
      return 'Join request pending'
    case 'refused':
      return `Refused: ${access.reason}`
    case 'removed':
      return 'Not a member'
    default:
      return 'Not joined'
  }
}

function GroupRow(props: {
  group: GroupSummary
  current: boolean
  onOpen: () => void
  depth?: number
  /** Set when another of the user's groups has a look-alike name: the id tells them apart. */
  twin?: TwinVerdict
}) {
  const g = props.group
  const label = accessLabel(g.access)
  const unread = countBadge(g)
  const quiet = quietBadge(g)
  const depth = props.depth ?? 0
  return (
    <li>
      <button
        type="button"
        className={`${unread > 0 || g.mentions > 0 ? 'group-item unread' : 'group-item'}${depth ? ' child' : ''}`}
        style={depth ? ({ '--depth': depth } as CSSProperties) : undefined}
        aria-current={props.current ? 'page' : undefined}
        data-group={g.key}
        onClick={props.onOpen}
      >
        <Avatar name={g.name} seed={g.key} picture={g.picture} size={32} square />
        <span className="gname">
          <span>
            <bdi>{g.name}</bdi>
          </span>
          {props.twin ? (
            <span className="access">
              <TwinMark id={g.id} twin={props.twin} relay={g.relay} />
            </span>
          ) : null}
          {label ? (
            <span className={`access ${g.access.status}`} title={label}>
              {label}
            </span>
          ) : null}
        </span>
        {g.requests > 0 ? (
          <span className="requests-badge" title="Join requests waiting">
            {g.requests}
            <span className="visually-hidden"> join {g.requests === 1 ? 'request' : 'requests'}</span>
          </span>
        ) : null}
        {g.threadUnread ? (
          <span className="thread-dot" title="New thread replies">
            <span className="visually-hidden">new thread replies</span>
          </span>
        ) : null}
        {g.notify === 'muted' ? <MutedMark /> : null}
        {g.mentions > 0 ? <MentionBadge count={g.mentions} /> : null}
        {quiet > 0 ? (
          <span className="badge quiet" data-testid="quiet-badge" title="Unread (mentions only)">
            {quiet > 99 ? '99+' : quiet}
            <span className="visually-hidden"> unread</span>
          </span>
        ) : null}
        {unread > 0 ? (
          <span className="badge" data-testid="unread-badge">
            {unread > 99 ? '99+' : unread}
            <span className="visually-hidden"> unread</span>
          </span>
        ) : null}
      </button>
      {g.access.status === 'removed' || g.access.status === 'refused' ? <ForgetButton group={g} /> : null}
    </li>
  )
}

/**
 * "Remove from my list" under a group that removed or refused the user: takes it off their
 * 10009 (so their other devices drop it too) without asking the relay.
 */
export function ForgetButton(props: { group: GroupSummary; className?: string }) {
  const app = useApp()
  const [busy, setBusy] = useState(false)
  const [failed, setFailed] = useState<string>()
  return (
    <>
      <button
        type="button"
        className={props.className ?? 'btn small forget-btn'}
        aria-label={props.className ? undefined : `Remove ${props.group.name} from my list`}
        disabled={busy}
        onClick={async () => {
          setBusy(true)
          const answer = await app.forget(props.group.key)
          setBusy(false)
          if (!answer.ok) setFailed(answer.message)
        }}
      >
        {busy ? 'Removing…' : 'Remove from my list'}
      </button>
      {failed ? (
        <span className="forget-error" role="alert">
          {failed}
        </span>
      ) : null}
    </>
  )
}

/** The group list and the account: a column on wide screens, a drawer on phones. */
export function Sidebar(props: {
  ref?: Ref<HTMLElement>
  currentKey?: string
  /** On phones: whether the drawer is open, and how to close it. */
  drawer?: { open: boolean; onClose: () => void }
  onOpen: (key: string) => void
  onJoin: () => void
  onBrowse: () => void
  onCreate: () => void
  onSettings: () => void
  onShortcuts: () => void
}) {
  const snap = useAppSnapshot()
  const app = useApp()
  const twins = useGroupTwins(snap.groups)
  const drawer = props.drawer
  return (
    <aside
      ref={props.ref}
      className={drawer ? `sidebar drawer${drawer.open ? ' open' : ''}` : 'sidebar'}
      aria-label="Groups"
      inert={drawer ? !drawer.open : undefined}
    >
      <div className="sidebar-head">
        <h1>
          <img src="/favicon.svg" alt="" /> Roost
        </h1>
        {drawer ? (
          <button type="button" className="icon-btn" aria-label="Close group list" onClick={drawer.onClose}>
            <Icon name="close" />
          </button>
        ) : null}
      </div>
      <nav aria-labelledby="groups-title">
        <h2 className="section-title" id="groups-title">
          Groups
        </h2>
        {snap.groups.length === 0 ? (
          <p style={{ padding: '4px 10px', color: 'var(--sidebar-muted)', fontSize: 14 }}>
            No groups yet. Browse the relay or join with a link.
          </p>
        ) : (
          <ul className="group-list">
            {treeOrder(snap.groups).map(({ group: g, depth }) => (
              <GroupRow
                key={g.key}
                group={g}
                depth={depth}
                twin={twins.get(g.key)}
                current={g.key === props.currentKey}
                onOpen={() => props.onOpen(g.key)}
              />
            ))}
          </ul>
        )}
      </nav>
      <div className="sidebar-actions">
        {snap.groups.some((g) => g.unread > 0 || g.mentions > 0 || g.threadUnread) ? (
          <button type="button" className="btn" onClick={() => app.markAllRead()}>
            <Icon name="check" /> Mark all as read
          </button>
        ) : null}
        <button type="button" className="btn" onClick={props.onJoin}>
          <Icon name="plus" /> Join a group
        </button>
        <button type="button" className="btn" onClick={props.onBrowse}>
          <Icon name="search" /> Browse groups
        </button>
        <button type="button" className="btn" onClick={props.onCreate}>
          <Icon name="edit" /> Create a group
        </button>
      </div>
      <div className="me">
        <PersonAvatar pubkey={snap.session.pubkey} size={28} />
        <PersonName pubkey={snap.session.pubkey} className="who" />
        <button
          type="button"
          className="icon-btn"
          aria-label="Keyboard shortcuts"
          title="Keyboard shortcuts (?)"
          onClick={props.onShortcuts}
        >
          <Icon name="keyboard" />
        </button>
        <button
          type="button"
          className="icon-btn"
          aria-label="Settings and account"
          onClick={props.onSettings}
        >
          <Icon name="settings" />
        </button>
      </div>
    </aside>
  )
}
