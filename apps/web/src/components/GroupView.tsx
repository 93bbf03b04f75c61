import { type KeyboardEvent, useCallback, useEffect, useId, useMemo, useRef, useState } from 'react'
import { useApp, useGroup, usePageVisible } from '../hooks'
import type { GroupHandle } from '../model/api'
import type { Answer, GroupDetail, MessageItem } from '../model/types'
import { Avatar } from './Avatar'
import { Composer } from './Composer'
import { AnswerNotice } from './Dialog'
import { EditGroupDialog } from './EditGroupDialog'
import { Icon } from './Icon'
import { InviteDialog } from './InviteDialog'
import type { MessageActions } from './MessageRow'
import { ProfileCardHost, useGroupPeople } from './People'
import { ThreadDialog } from './ThreadDialog'
import { Timeline } from './Timeline'

export type SidePanel = { type: 'thread'; rootId: string } | { type: 'members' } | undefined

function AccessBanner(props: { detail: GroupDetail; handle: GroupHandle }) {
  const a = props.detail.access
  const [code, setCode] = useState('')
  const [answer, setAnswer] = useState<Answer>()
  const [busy, setBusy] = useState(false)
  const id = useId()
  if (a.status === 'member') {
    return props.detail.refused ? (
      <p className="notice error access-banner" role="status">
        The relay does not show this group: {props.detail.refused}
      </p>
    ) : null
  }
  async function retry() {
    setBusy(true)
    setAnswer(await props.handle.retryJoin(code.trim() || undefined))
    setBusy(false)
  }
  const text =
    a.status === 'pending'
      ? 'Your join request is waiting for an admin.'
      : a.status === 'refused'
        ? `The relay refused to let you join: ${a.reason}`
        : a.status === 'removed'
          ? 'You are not a member of this group.'
          : 'You have not joined this group yet.'
  return (
    <div
      className={`notice ${a.status === 'refused' ? 'error' : 'warn'} access-banner`}
      role="status"
      data-testid="access"
    >
      <p style={{ margin: '0 0 6px' }}>{text}</p>
      {a.status !== 'pending' ? (
        <div className="row" style={{ flexWrap: 'wrap' }}>
          <label htmlFor={id} className="visually-hidden">
            Invite code
          </label>
          <input
            id={id}
            type="text"
            placeholder="Invite code (if you have one)"
            value={code}
            onChange={(e) => setCode(e.target.value)}
            style={{ maxWidth: 260 }}
          />
          <button type="button" className="btn primary small" onClick={retry} disabled={busy}>
            {busy ? 'Asking…' : a.status === 'refused' ? 'Try again' : 'Join'}
          </button>
        </div>
      ) : null}
      <AnswerNotice answer={answer && !answer.ok ? answer : undefined} />
    </div>
  )
}

function GroupMenu(props: {
  detail: GroupDetail
  onPeople: () => void
  onInvite: () => void
  onEdit: () => void
  onLeave: () => void
  onCopyCode: () => void
  onThread: () => void
}) {
  const [open, setOpen] = useState(false)
  const ref = useRef<HTMLDivElement>(null)
  const buttonRef = useRef<HTMLButtonElement>(null)
  const id = useId()
  useEffect(() => {
    if (!open) return
    const close = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false)
    }
    document.addEventListener('mousedown', close)
    ref.current?.querySelector<HTMLButtonElement>('[role=menuitem]')?.focus()
    return () => document.removeEventListener('mousedown', close)
  }, [open])
  function onMenuKey(e: KeyboardEvent<HTMLDivElement>) {
    if (e.key === 'Escape' || e.key === 'Tab') {
      if (e.key === 'Escape') e.preventDefault()
      setOpen(false)
      if (e.key === 'Escape') buttonRef.current?.focus()
      return
    }
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return
    e.preventDefault()
    const items = [...(ref.current?.querySelectorAll<HTMLButtonElement>('[role=menuitem]') ?? [])]
    const at = items.indexOf(document.activeElement as HTMLButtonElement)
    items[(at + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus()
  }
  const item = (label: string, fn: () => void, danger = false) => (
    <button
      type="button"
      role="menuitem"
      className={danger ? 'danger' : undefined}
      onClick={() => {
        setOpen(false)
        fn()
      }}
    >
      {label}
    </button>
  )
  const admin = props.detail.me?.admin === true
  return (
    <div className="menu" ref={ref}>
      <button
        ref={buttonRef}
        type="button"
        className="btn"
        aria-label="Group actions"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={() => setOpen((o) => !o)}
      >
        Group <Icon name="chevron" size={16} />
      </button>
      {open ? (
        <div className="menu-list" role="menu" id={id} aria-label="Group" tabIndex={-1} onKeyDown={onMenuKey}>
          {item('Start a thread…', props.onThread)}
          {item('People', props.onPeople)}
          {item('Copy group code', props.onCopyCode)}
          {admin ? item('Invite people…', props.onInvite) : null}
          {admin ? item('Edit group…', props.onEdit) : null}
          {item('Leave group', props.onLeave, true)}
        </div>
      ) : null}
    </div>
  )
}

/** Header, access state, timeline and composer of one group. */
export function GroupView(props: {
  handle: GroupHandle
  me: string
  side: SidePanel
  onSide: (side: SidePanel) => void
  onLeave: () => Promise<Answer>
  /** Opens the group list (the drawer on phones). */
  onMenu?: () => void
  /** The drawer or a full-screen sheet covers the view: it leaves the tab order. */
  covered?: boolean
}) {
  const { handle } = props
  const detail = useGroup(handle)
  const visible = usePageVisible()
  const [dialog, setDialog] = useState<'invite' | 'edit' | 'thread'>()
  const [replyTo, setReplyTo] = useState<MessageItem>()
  const [notice, setNotice] = useState<Answer>()
  // The "new messages" line stays where the read frontier was when the group was opened.
  const [lineAt] = useState(() => detail?.frontier)

  const onSide = props.onSide
  const actions: MessageActions = useMemo(
    () => ({
      onReply: (m) => setReplyTo(m),
      onReact: async (m, emoji) => {
        const answer = await handle.react(m, emoji)
        if (!answer.ok) setNotice(answer)
      },
      onOpenThread: (m) => onSide({ type: 'thread', rootId: m.id }),
      onDelete:
        detail?.me?.admin === true
          ? async (m) => {
              if (!window.confirm('Delete this message for everyone?')) return
              setNotice(await handle.deleteMessage(m.id))
            }
          : undefined,
    }),
    [handle, onSide, detail?.me?.admin],
  )
  const onSeen = useCallback((at: number) => handle.markRead(at), [handle])
  const onLoadOlder = useCallback(() => void handle.loadOlder(), [handle])
  const byId = useCallback((id: string) => handle.message(id), [handle])
  useGroupPeople(detail)
  const app = useApp()

  if (!detail) return null
  const flags = [
    detail.flags.private ? 'private' : null,
    detail.metadataKnown ? (detail.flags.closed ? 'closed' : 'open') : null,
    detail.flags.restricted ? 'restricted' : null,
    detail.flags.hidden ? 'hidden' : null,
  ].filter((f): f is string => f !== null)
  // A private group keeps its member lists from non-members: show no count rather than 0.
  const peopleKnown = detail.members.length > 0 || detail.membersKnown

  return (
    <main className="main" id="main" tabIndex={-1} aria-labelledby="group-title" inert={props.covered}>
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
        <Avatar name={detail.name} seed={detail.key} picture={detail.picture} size={40} square />
        <div className="titles">
          <h2 id="group-title">
            <bdi>{detail.name}</bdi>
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
              ? 'Saved messages · connecting…'
              : 'Connecting…'
            : null}
        </div>
        <button
          type="button"
          className="btn ghost"
          aria-pressed={props.side?.type === 'members'}
          aria-label={peopleKnown ? `People, ${detail.members.length}` : 'People'}
          onClick={() => onSide(props.side?.type === 'members' ? undefined : { type: 'members' })}
        >
          <Icon name="people" /> {peopleKnown ? detail.members.length : null}
        </button>
        <GroupMenu
          detail={detail}
          onPeople={() => onSide({ type: 'members' })}
          onInvite={() => setDialog('invite')}
          onThread={() => setDialog('thread')}
          onEdit={() => setDialog('edit')}
          onCopyCode={() => {
            const code = `${detail.relay}'${detail.id}`
            void navigator.clipboard?.writeText(code).catch(() => undefined)
            setNotice({ ok: true, message: `Group code copied: ${code}` })
          }}
          onLeave={async () => {
            if (!window.confirm(`Leave ${detail.name}?`)) return
            const answer = await props.onLeave()
            if (!answer.ok) setNotice(answer)
          }}
        />
      </header>
      <AccessBanner detail={detail} handle={handle} />
      {notice ? (
        <div style={{ padding: '0 16px' }}>
          <AnswerNotice answer={notice} />
        </div>
      ) : null}
      <Timeline
        key={detail.key}
        groupKey={detail.key}
        me={props.me}
        messages={detail.messages}
        byId={byId}
        lineAt={lineAt}
        hasOlder={detail.hasOlder}
        loadingOlder={detail.loadingOlder}
        onLoadOlder={onLoadOlder}
        onSeen={onSeen}
        actions={actions}
        visible={visible}
        emptyText={
          detail.loading
            ? 'Loading messages…'
            : detail.access.status === 'member' ||
                (detail.metadataKnown && !(detail.flags.private || detail.flags.closed))
              ? 'No messages yet. Say hello!'
              : detail.access.status === 'pending'
                ? 'Messages appear here once an admin lets you in.'
                : 'Join this group to see its messages.'
        }
      />
      <Composer
        label={`Message ${detail.name}`}
        placeholder={`Message ${detail.name}`}
        canSend={detail.canSend}
        replyTo={replyTo}
        onCancelReply={() => setReplyTo(undefined)}
        onUpload={(file, onProgress) => app.upload(file, detail.relay, onProgress)}
        onSend={async (text, media) => {
          const answer = await handle.send(text, replyTo?.id, media)
          if (answer.ok) setReplyTo(undefined)
          return answer
        }}
      />
      <ProfileCardHost />
      {dialog === 'thread' ? (
        <ThreadDialog
          handle={handle}
          onClose={() => setDialog(undefined)}
          onStarted={() => setDialog(undefined)}
        />
      ) : null}
      {dialog === 'invite' ? <InviteDialog handle={handle} onClose={() => setDialog(undefined)} /> : null}
      {dialog === 'edit' ? (
        <EditGroupDialog handle={handle} detail={detail} onClose={() => setDialog(undefined)} />
      ) : null}
    </main>
  )
}
