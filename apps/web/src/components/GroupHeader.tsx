import { useApp } from '../hooks'
import { usePhone } from '../lib/phone'
import type { GroupHandle } from '../model/api'
import type { GroupDetail } from '../model/types'
import { Avatar } from './Avatar'
import { CallButton } from './CallButton'
import { GroupMenu } from './GroupMenu'
import { Icon } from './Icon'
import { TwinMark } from './Lookalike'
import { chooseNotifyLevel, NotifyMenu } from './NotifyMenu'

/** What the side panel shows: a thread, the people, or nothing. */
export type SidePanel = { type: 'thread'; rootId: string } | { type: 'members' } | undefined

export type GroupDialog = 'invite' | 'edit' | 'thread' | 'share' | 'subgroup' | 'move' | 'delete'

/**
 * The group's header. The name comes first: on a phone the avatar, search, people and the bell
 * give their room to it and live in the Group menu, and a long name ends in an ellipsis.
 */
export function GroupHeader(props: {
  handle: GroupHandle
  detail: GroupDetail
  side: SidePanel
  onSide: (side: SidePanel) => void
  onDialog: (dialog: GroupDialog) => void
  onLeave: () => void
  onMenu?: () => void
  onSearch?: () => void
  /** The id shown beside a name that looks like another of the user's groups. */
  twin?: Parameters<typeof TwinMark>[0]['twin']
  /** The browser is offline: the status says so rather than "connecting…". */
  offline?: boolean
}) {
  const { detail, onSide } = props
  const app = useApp()
  const phone = usePhone()
  const flags = [
    detail.flags.private ? 'private' : null,
    detail.metadataKnown ? (detail.flags.closed ? 'closed' : 'open') : null,
    detail.flags.restricted ? 'restricted' : null,
    detail.flags.hidden ? 'hidden' : null,
  ].filter((f): f is string => f !== null)
  // A private group keeps its member lists from non-members: show no count rather than 0.
  const peopleKnown = detail.members.length > 0 || detail.membersKnown
  return (
    <header className="group-head">
      {props.onMenu ? (
        <button
          type="button"
          className="icon-btn menu-btn"
          aria-label="Open group list"
          onClick={props.onMenu}
        >
          <Icon name="menu" />
        </button>
      ) : null}
      {phone ? null : (
        <Avatar name={detail.name} seed={detail.key} picture={detail.picture} size={40} square />
      )}
      <div className="titles">
        <h2 id="group-title" title={phone ? detail.name : undefined}>
          <bdi>{detail.name}</bdi>
          {props.twin ? <TwinMark id={detail.id} twin={props.twin} relay={detail.relay} /> : null}
          <span className="chips">
            {flags.map((f) => (
              <span key={f} className="chip">
                {f}
              </span>
            ))}
          </span>
        </h2>
        {detail.about ? <p className="about">{detail.about}</p> : null}
      </div>
      <div role="status" className="sync-status">
        {detail.loading
          ? detail.messages.length > 0
            ? `Saved messages · ${props.offline ? 'offline' : 'connecting…'}`
            : props.offline
              ? 'Offline'
              : 'Connecting…'
          : null}
      </div>
      {props.onSearch && !phone ? (
        <button
          type="button"
          className="btn ghost"
          aria-label="Search messages"
          title="Search messages (/)"
          onClick={props.onSearch}
        >
          <Icon name="search" />
        </button>
      ) : null}
      <CallButton key={detail.key} handle={props.handle} detail={detail} />
      {phone ? null : (
        <button
          type="button"
          className="btn ghost"
          aria-pressed={props.side?.type === 'members'}
          aria-label={peopleKnown ? `People, ${detail.members.length}` : 'People'}
          onClick={() => onSide(props.side?.type === 'members' ? undefined : { type: 'members' })}
        >
          <Icon name="people" /> {peopleKnown ? detail.members.length : null}
        </button>
      )}
      {phone ? null : <NotifyMenu groupKey={detail.key} groupName={detail.name} level={detail.notify} />}
      <GroupMenu
        detail={detail}
        onPeople={() => onSide({ type: 'members' })}
        onInvite={() => props.onDialog('invite')}
        onThread={() => props.onDialog('thread')}
        onEdit={() => props.onDialog('edit')}
        onCopyCode={() => props.onDialog('share')}
        onMarkRead={() => props.handle.markAllRead()}
        onAdmin={props.onDialog}
        onLeave={props.onLeave}
        phone={
          phone
            ? {
                onSearch: props.onSearch,
                people: peopleKnown ? detail.members.length : undefined,
                level: detail.notify,
                onLevel: (level) => chooseNotifyLevel(app, detail.key, level),
              }
            : undefined
        }
      />
    </header>
  )
}
