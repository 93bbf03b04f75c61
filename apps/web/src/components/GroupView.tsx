import { useCallback, useId, useMemo, useState } from 'react'
import { useApp, useAppSnapshot, useGroup, usePageVisible } from '../hooks'
import type { GroupHandle } from '../model/api'
import type { Answer, GroupDetail, MessageItem } from '../model/types'
import { PRIVATE_MEDIA_NOTICE } from './Attachments'
import { DeleteGroupDialog, MoveDialog, ShareDialog, SubgroupDialog } from './CommunityDialogs'
import { Composer } from './Composer'
import { ConfirmDialog } from './ConfirmDialog'
import { DeleteMessageDialog } from './DeleteMessageDialog'
import { AnswerNotice } from './Dialog'
import { EditGroupDialog } from './EditGroupDialog'
import { ForkBanner } from './ForkBanner'
import { type GroupDialog, GroupHeader, type SidePanel } from './GroupHeader'
import { InviteDialog } from './InviteDialog'
import type { MessageActions } from './MessageRow'
import { NewMessagesAnnouncer } from './NewMessagesAnnouncer'
import { ProfileCardHost } from './People'
import { PinnedBar } from './PinnedBar'
import { useGroupPeople } from './people-store'
import { ReportDialog } from './ReportDialog'
import { type RevealRequest, SearchHighlight, useRevealMessage } from './SearchReveal'
import { ForgetButton } from './Sidebar'
import { ThreadDialog } from './ThreadDialog'
import { Timeline } from './Timeline'
import { useGroupTwins } from './useGroupTwins'

const NO_PINS: string[] = []
const NO_MESSAGES: MessageItem[] = []

/** Who `@` offers in the composer: the group's members, then recent authors, without us. */
function mentionCandidates(detail: GroupDetail | undefined, me: string): string[] {
  if (!detail) return []
  const out = new Set<string>()
  for (const m of detail.members) out.add(m.pubkey)
  const rows = detail.messages
  for (let i = rows.length - 1; i >= 0 && out.size < 200; i--) out.add((rows[i] as MessageItem).pubkey)
  out.delete(me)
  return [...out]
}

export type { SidePanel } from './GroupHeader'

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
      ? `Request sent — an admin of ${props.detail.name} must approve it.`
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
      {/* A code admits at once, also while a request waits. */}
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
          {busy
            ? 'Asking…'
            : a.status === 'refused'
              ? 'Try again'
              : a.status === 'pending'
                ? 'Use the code'
                : 'Join'}
        </button>
      </div>
      <AnswerNotice answer={answer && !answer.ok ? answer : undefined} />
      {a.status === 'removed' || a.status === 'refused' ? (
        <div className="row" style={{ marginTop: 6 }}>
          <ForgetButton group={props.detail} className="btn small" />
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
  /** Opens message search (the header's search button). */
  onSearch?: () => void
  /** A search result to bring into view and highlight. */
  reveal?: RevealRequest
}) {
  const { handle } = props
  const revealed = useRevealMessage(handle, props.reveal)
  const detail = useGroup(handle)
  const visible = usePageVisible()
  const [dialog, setDialog] = useState<GroupDialog>()
  const [notice, setNotice] = useState<Answer>()
  const [reporting, setReporting] = useState<MessageItem>()
  const [deleting, setDeleting] = useState<MessageItem>()
  const [leaving, setLeaving] = useState(false)
  // The "new messages" line stays where the read frontier was when the group was opened.
  const [lineAt] = useState(() => detail?.frontier)

  const onSide = props.onSide
  const pinned = detail?.pins ?? NO_PINS
  const app = useApp()
  const { drafts } = app
  /** Quotes `m` in the group's box (the draft keeps it). */
  const replyTo = useCallback(
    (m: MessageItem) => drafts.set(handle.key, { ...drafts.get(handle.key), replyTo: m.id }),
    [drafts, handle],
  )
  const actions: MessageActions = useMemo(
    () => ({
      onReply: replyTo,
      onReact: async (m, emoji) => {
        const answer = await handle.react(m, emoji)
        if (!answer.ok) setNotice(answer)
      },
      onUnreact: async (m, emoji) => {
        const answer = await handle.unreact(m, emoji)
        if (!answer.ok) setNotice(answer)
      },
      onOpenThread: (m) => onSide({ type: 'thread', rootId: m.id }),
      // Our own messages: a NIP-09 kind 5; others' (moderators only): 9005.
      canDelete: (m) => m.pubkey === props.me || detail?.me?.admin === true,
      onDelete: setDeleting,
      onPin:
        detail?.me?.admin === true
          ? async (m) => {
              const answer = await handle.pin(m.id, !pinned.includes(m.id))
              setNotice(answer)
            }
          : undefined,
      isPinned: (id) => pinned.includes(id),
      onReport: setReporting,
      canReport: (m) => m.pubkey !== props.me,
      onRetrySend: (m) => void handle.retrySend(m.id),
      onDiscardSend: (m) => handle.discardSend(m.id),
    }),
    [handle, onSide, detail?.me?.admin, props.me, pinned, replyTo],
  )
  const mentionable = useMemo(() => mentionCandidates(detail, props.me), [detail, props.me])
  const onSeen = useCallback((at: number) => handle.markRead(at), [handle])
  const onLoadOlder = useCallback(() => void handle.loadOlder(), [handle])
  const byId = useCallback((id: string) => handle.message(id), [handle])
  useGroupPeople(detail)
  // Another of the user's groups looks like this one by name: the header shows the id too.
  const shell = useAppSnapshot()
  const twin = useGroupTwins(shell.groups).get(props.handle.key)
  const offline = shell.connection.status === 'offline'

  if (!detail) return null

  return (
    <main className="main" id="main" tabIndex={-1} aria-labelledby="group-title" inert={props.covered}>
      <GroupHeader
        handle={handle}
        detail={detail}
        side={props.side}
        onSide={onSide}
        onDialog={setDialog}
        onMenu={props.onMenu}
        onSearch={props.onSearch}
        twin={twin}
        offline={offline}
        onLeave={() => setLeaving(true)}
      />
      <AccessBanner detail={detail} handle={handle} />
      <ForkBanner groupKey={detail.key} id={detail.id} />
      {notice ? (
        <div style={{ padding: '0 16px' }}>
          <AnswerNotice answer={notice} />
        </div>
      ) : null}
      <PinnedBar handle={handle} detail={detail} />
      {revealed.missing ? (
        <p className="notice warn" role="status" style={{ margin: '0 16px' }}>
          That message is not in this group's history here.
        </p>
      ) : null}
      <SearchHighlight id={revealed.request?.id} />
      <Timeline
        key={detail.key}
        groupKey={detail.key}
        me={props.me}
        // What the cache holds paints with its authors' names, read with it (`loaded`).
        messages={shell.loaded ? detail.messages : NO_MESSAGES}
        byId={byId}
        lineAt={lineAt}
        hasOlder={detail.hasOlder}
        loadingOlder={detail.loadingOlder}
        olderUnavailable={detail.olderUnreachable ? (offline ? 'offline' : 'relay') : undefined}
        onLoadOlder={onLoadOlder}
        onSeen={onSeen}
        actions={actions}
        visible={visible}
        reveal={revealed.request}
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
      <NewMessagesAnnouncer
        // Another group's messages are not news here (the timeline already has this key).
        key={`new-in-${detail.key}`}
        messages={detail.messages}
        me={props.me}
        loading={detail.loading}
      />
      <Composer
        label={`Message ${detail.name}`}
        placeholder={`Message ${detail.name}`}
        canSend={detail.canSend}
        box={handle.key}
        sending={detail.sending}
        message={byId}
        people={mentionable}
        onQuoteLast={() => {
          const last = detail.messages.findLast((m) => m.pubkey === props.me && !m.pending && !m.send)
          if (last) replyTo(last)
          return last !== undefined
        }}
        onUpload={(file, onProgress) => app.upload(file, detail.relay, onProgress)}
        attachNotice={detail.flags.private ? PRIVATE_MEDIA_NOTICE : undefined}
        onSubmit={(draft) => void handle.post(handle.key, draft)}
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
      {reporting ? (
        <ReportDialog
          handle={handle}
          message={reporting}
          groupName={detail.name}
          onClose={() => setReporting(undefined)}
        />
      ) : null}
      {deleting ? (
        <DeleteMessageDialog
          message={deleting}
          onClose={() => setDeleting(undefined)}
          onConfirm={async () => {
            const m = deleting
            // Our own messages: a NIP-09 kind 5; others' (moderators only): 9005.
            const answer = await (m.pubkey === props.me ? handle.deleteOwn(m.id) : handle.deleteMessage(m.id))
            if (answer.ok) setNotice(answer)
            return answer
          }}
        />
      ) : null}
      {leaving ? (
        <ConfirmDialog
          title="Leave group"
          confirm="Leave group"
          busy="Leaving…"
          onConfirm={props.onLeave}
          onClose={() => setLeaving(false)}
        >
          <p>Leave {detail.name}? The relay is told you left, and the group comes off your list.</p>
        </ConfirmDialog>
      ) : null}
      {dialog === 'share' ? <ShareDialog detail={detail} onClose={() => setDialog(undefined)} /> : null}
      {dialog === 'subgroup' ? <SubgroupDialog detail={detail} onClose={() => setDialog(undefined)} /> : null}
      {dialog === 'move' ? (
        <MoveDialog handle={handle} detail={detail} onClose={() => setDialog(undefined)} />
      ) : null}
      {dialog === 'delete' ? (
        <DeleteGroupDialog handle={handle} detail={detail} onClose={() => setDialog(undefined)} />
      ) : null}
      {dialog === 'edit' ? (
        <EditGroupDialog handle={handle} detail={detail} onClose={() => setDialog(undefined)} />
      ) : null}
    </main>
  )
}
