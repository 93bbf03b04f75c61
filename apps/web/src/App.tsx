import { useCallback, useEffect, useState } from 'react'
import { BrowseView } from './components/BrowseView'
import { CreateGroupDialog } from './components/CreateGroupDialog'
import { GroupView, type SidePanel } from './components/GroupView'
import { JoinDialog } from './components/JoinDialog'
import { MembersPanel } from './components/MembersPanel'
import { SettingsDialog } from './components/SettingsDialog'
import { Sidebar } from './components/Sidebar'
import { ThreadPanel } from './components/ThreadPanel'
import { useApp, useAppSnapshot, useGroup, usePageVisible } from './hooks'
import type { GroupHandle } from './model/api'

type Route =
  | { type: 'home' }
  | { type: 'browse' }
  | { type: 'group'; key: string }
  | { type: 'join'; input: string }

/** `#/g/<group key>`, `#/browse`, `#/join/<naddr or code>`: so reload and links land in the right place. */
export function parseRoute(hash: string): Route {
  const [, kind, ...rest] = hash.replace(/^#/, '').split('/')
  const value = decodeURIComponent(rest.join('/'))
  if (kind === 'g' && value) return { type: 'group', key: value }
  if (kind === 'browse') return { type: 'browse' }
  if (kind === 'join' && value) return { type: 'join', input: value }
  return { type: 'home' }
}

function routeHash(route: Route): string {
  if (route.type === 'group') return `#/g/${encodeURIComponent(route.key)}`
  if (route.type === 'browse') return '#/browse'
  return '#/'
}

function useRoute(): [Route, (r: Route) => void] {
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash))
    window.addEventListener('hashchange', on)
    return () => window.removeEventListener('hashchange', on)
  }, [])
  const go = useCallback((r: Route) => {
    const hash = routeHash(r)
    if (location.hash !== hash) history.pushState(null, '', hash)
    setRoute(r)
  }, [])
  return [route, go]
}

function Home(props: {
  onJoin: () => void
  onBrowse: () => void
  onCreate: () => void
  onOpen: (key: string) => void
  firstRun: boolean
}) {
  return (
    <main className="main" id="main" tabIndex={-1} aria-labelledby="home-title">
      <div className="page" style={props.firstRun ? { flex: 'none', paddingBottom: 0 } : undefined}>
        <h2 id="home-title">Welcome to Roost</h2>
        <p className="hint" style={{ maxWidth: 560 }}>
          Groups live on relays. Pick one from the sidebar, browse the public groups of your relay, or paste
          an invite link you were given.
        </p>
        <div className="row" style={{ marginTop: 16 }}>
          <button type="button" className="btn primary" onClick={props.onBrowse}>
            Browse groups
          </button>
          <button type="button" className="btn" onClick={props.onJoin}>
            Join with a link
          </button>
          <button type="button" className="btn" onClick={props.onCreate}>
            Create a group
          </button>
        </div>
      </div>
      {/* A first visit shows this relay's groups right away, one click from joining. */}
      {props.firstRun ? <BrowseView onOpen={props.onOpen} title="Groups on this relay" /> : null}
    </main>
  )
}

function SidePanelView(props: { handle: GroupHandle; side: SidePanel; me: string; onClose: () => void }) {
  const detail = useGroup(props.handle)
  const visible = usePageVisible()
  if (!detail || !props.side) return null
  if (props.side.type === 'members')
    return <MembersPanel handle={props.handle} detail={detail} me={props.me} onClose={props.onClose} />
  return (
    <ThreadPanel
      key={props.side.rootId}
      handle={props.handle}
      detail={detail}
      rootId={props.side.rootId}
      visible={visible}
      actions={{ onReact: (m, emoji) => void props.handle.react(m, emoji) }}
      onClose={props.onClose}
    />
  )
}

/** The signed-in shell: sidebar, the open group or page, and the side panel. */
export function App() {
  const app = useApp()
  const snap = useAppSnapshot()
  const [route, go] = useRoute()
  const [dialog, setDialog] = useState<'join' | 'create' | 'settings'>()
  const [joinInput, setJoinInput] = useState<string>()
  // The side panel belongs to the group it was opened in.
  const [sideState, setSideState] = useState<{ key: string; panel: SidePanel }>()

  useEffect(() => {
    if (route.type === 'join') {
      setJoinInput(route.input)
      setDialog('join')
      go({ type: 'home' })
    }
  }, [route, go])

  // Tab title: total unread.
  useEffect(() => {
    document.title = snap.totalUnread > 0 ? `(${snap.totalUnread}) Roost` : 'Roost'
  }, [snap.totalUnread])

  const groupKey = route.type === 'group' ? route.key : undefined
  const handle = groupKey ? app.group(groupKey) : undefined
  const side = sideState && sideState.key === groupKey ? sideState.panel : undefined
  const setSide = useCallback(
    (panel: SidePanel) => setSideState(groupKey ? { key: groupKey, panel } : undefined),
    [groupKey],
  )

  const open = useCallback((key: string) => go({ type: 'group', key }), [go])
  const closeDialog = useCallback(() => setDialog(undefined), [])

  return (
    <div className="shell">
      <button
        type="button"
        className="skip-link"
        onClick={() =>
          (
            document.querySelector<HTMLElement>('#main textarea:not([disabled])') ??
            document.querySelector<HTMLElement>('#main')
          )?.focus()
        }
      >
        Skip to content
      </button>
      <Sidebar
        currentKey={groupKey}
        onOpen={open}
        onJoin={() => {
          setJoinInput(undefined)
          setDialog('join')
        }}
        onBrowse={() => go({ type: 'browse' })}
        onCreate={() => setDialog('create')}
        onSettings={() => setDialog('settings')}
      />
      {handle ? (
        <GroupView
          key={handle.key}
          handle={handle}
          me={snap.session.pubkey}
          side={side}
          onSide={setSide}
          onLeave={async () => {
            const answer = await app.leave(handle.key)
            if (answer.ok) go({ type: 'home' })
            return answer
          }}
        />
      ) : route.type === 'browse' ? (
        <main className="main" id="main" tabIndex={-1}>
          <BrowseView onOpen={open} />
        </main>
      ) : (
        <Home
          firstRun={snap.groups.length === 0}
          onOpen={open}
          onJoin={() => setDialog('join')}
          onBrowse={() => go({ type: 'browse' })}
          onCreate={() => setDialog('create')}
        />
      )}
      {handle && side ? (
        <SidePanelView
          handle={handle}
          side={side}
          me={snap.session.pubkey}
          onClose={() => setSide(undefined)}
        />
      ) : null}
      {dialog === 'join' ? (
        <JoinDialog
          initial={joinInput}
          onClose={closeDialog}
          onJoined={(key) => {
            setDialog(undefined)
            open(key)
          }}
        />
      ) : null}
      {dialog === 'create' ? (
        <CreateGroupDialog
          onClose={closeDialog}
          onCreated={(key) => {
            setDialog(undefined)
            open(key)
          }}
        />
      ) : null}
      {dialog === 'settings' ? <SettingsDialog onClose={closeDialog} /> : null}
    </div>
  )
}
