import { useCallback, useEffect, useRef, useState } from 'react'
import { BrowseView } from './components/BrowseView'
import { ConnectionBanner } from './components/ConnectionBanner'
import { CreateGroupDialog } from './components/CreateGroupDialog'
import { GroupView, type SidePanel } from './components/GroupView'
import { Icon } from './components/Icon'
import { JoinDialog } from './components/JoinDialog'
import { MembersPanel } from './components/MembersPanel'
import { QuickSwitcher } from './components/QuickSwitcher'
import { SearchDialog } from './components/SearchDialog'
import type { RevealRequest } from './components/SearchReveal'
import { SettingsDialog } from './components/SettingsDialog'
import { ShortcutsDialog } from './components/ShortcutsDialog'
import { Sidebar } from './components/Sidebar'
import { ThreadPanel } from './components/ThreadPanel'
import { useApp, useAppSnapshot, useGroup, usePageVisible } from './hooks'
import { nextGroup } from './lib/group-nav'
import { useEdgeSwipe, usePhone, useVisualViewportHeight } from './lib/phone'
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

/** The phone's top bar on pages without a group header: the menu button and the page name. */
function PhoneBar(props: { title: string; onMenu: () => void }) {
  return (
    <div className="phone-bar">
      <button type="button" className="icon-btn menu-btn" aria-label="Open group list" onClick={props.onMenu}>
        <Icon name="menu" />
      </button>
      <span className="phone-bar-title">{props.title}</span>
    </div>
  )
}

function Home(props: {
  covered: boolean
  onMenu: () => void
  onJoin: () => void
  onBrowse: () => void
  onCreate: () => void
  onOpen: (key: string) => void
  firstRun: boolean
}) {
  return (
    <main className="main" id="main" tabIndex={-1} aria-labelledby="home-title" inert={props.covered}>
      <PhoneBar title="Roost" onMenu={props.onMenu} />
      <div className="page" style={props.firstRun ? { flex: 'none', paddingBottom: 0 } : undefined}>
        <h2 id="home-title">Welcome to Roost</h2>
        <p className="hint" style={{ maxWidth: 560 }}>
          Groups live on relays. Pick one from the sidebar, browse the public groups of your relay, or paste
          an invite link you were given.
        </p>
        <div className="row wrap" style={{ marginTop: 16 }}>
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
    return (
      <MembersPanel
        handle={props.handle}
        detail={detail}
        me={props.me}
        onClose={props.onClose}
        backLabel={`Back to ${detail.name}`}
      />
    )
  return (
    <ThreadPanel
      key={props.side.rootId}
      handle={props.handle}
      detail={detail}
      rootId={props.side.rootId}
      visible={visible}
      actions={{
        onReact: (m, emoji) => void props.handle.react(m, emoji),
        onUnreact: (m, emoji) => void props.handle.unreact(m, emoji),
      }}
      onClose={props.onClose}
      backLabel={`Back to ${detail.name}`}
    />
  )
}

/** Where focus goes after a keyboard jump to another group: its message box, else the page. */
function focusMain() {
  requestAnimationFrame(() =>
    (
      document.querySelector<HTMLElement>('#main .composer textarea:not([disabled])') ??
      document.querySelector<HTMLElement>('#main')
    )?.focus(),
  )
}

function isTextField(el: EventTarget | null): boolean {
  return (
    el instanceof HTMLElement &&
    (el.isContentEditable ||
      el.tagName === 'TEXTAREA' ||
      el.tagName === 'SELECT' ||
      (el.tagName === 'INPUT' && (el as HTMLInputElement).type !== 'checkbox'))
  )
}

/** The signed-in shell: sidebar (a drawer on phones), the open group or page, and the side panel. */
export function App() {
  const app = useApp()
  const snap = useAppSnapshot()
  const [route, go] = useRoute()
  const [dialog, setDialog] = useState<'join' | 'create' | 'settings' | 'shortcuts' | 'switcher' | 'search'>()
  // The search result to show in its group.
  const [reveal, setReveal] = useState<{ key: string; request: RevealRequest }>()
  const [joinInput, setJoinInput] = useState<string>()
  // The side panel belongs to the group it was opened in.
  const [sideState, setSideState] = useState<{ key: string; panel: SidePanel }>()
  const phone = usePhone()
  const [drawer, setDrawer] = useState(false)
  const drawerOpen = phone && drawer
  const shellRef = useRef<HTMLDivElement>(null)
  const sidebarRef = useRef<HTMLElement>(null)
  const menuOpener = useRef<HTMLElement | null>(null)
  const sideOpener = useRef<HTMLElement | null>(null)
  useVisualViewportHeight()

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
    (panel: SidePanel) => {
      if (panel) {
        // Escape or the back button returns focus to the control that opened the panel.
        setSideState((prev) => {
          if (!prev?.panel) sideOpener.current = document.activeElement as HTMLElement | null
          return groupKey ? { key: groupKey, panel } : undefined
        })
        return
      }
      setSideState(undefined)
      const opener = sideOpener.current
      sideOpener.current = null
      requestAnimationFrame(() => {
        if (opener?.isConnected) opener.focus()
        else document.querySelector<HTMLElement>('#main .composer textarea:not([disabled])')?.focus()
      })
    },
    [groupKey],
  )

  const openDrawer = useCallback(() => {
    menuOpener.current = document.activeElement as HTMLElement | null
    setDrawer(true)
  }, [])
  const closeDrawer = useCallback((restore = true) => {
    setDrawer(false)
    const opener = menuOpener.current
    menuOpener.current = null
    if (restore && opener?.isConnected) requestAnimationFrame(() => opener.focus())
  }, [])
  useEdgeSwipe(shellRef, sidebarRef, {
    enabled: phone,
    open: drawerOpen,
    onOpen: openDrawer,
    onClose: closeDrawer,
  })
  // The open drawer takes focus to the current group (or the first control in it).
  useEffect(() => {
    if (!drawerOpen) return
    const list = sidebarRef.current
    ;(
      list?.querySelector<HTMLElement>('[aria-current=page]') ??
      list?.querySelector<HTMLElement>('button, [href]')
    )?.focus()
  }, [drawerOpen])

  const open = useCallback(
    (key: string) => {
      if (drawer) closeDrawer(false)
      go({ type: 'group', key })
    },
    [go, drawer, closeDrawer],
  )
  const closeDialog = useCallback(() => setDialog(undefined), [])

  // Shortcuts that work anywhere: Alt+↑/↓ between groups, Alt+Shift+↑/↓ between unread ones,
  // `?` for the list of shortcuts, Escape to close the drawer or the side panel.
  const groups = snap.groups
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.defaultPrevented) return
      const modalOpen = document.querySelector('dialog[open]') !== null
      if (e.altKey && !e.ctrlKey && !e.metaKey && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) {
        if (modalOpen) return
        const target = nextGroup(groups, groupKey, e.key === 'ArrowUp' ? -1 : 1, e.shiftKey)
        e.preventDefault()
        if (target && target !== groupKey) {
          if (drawer) closeDrawer(false)
          go({ type: 'group', key: target })
          focusMain()
        }
        return
      }
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault()
        if (!modalOpen) setDialog('switcher')
        return
      }
      // Message search: `/` outside text fields, or Ctrl/Cmd+Shift+F anywhere.
      const slash = e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey && !isTextField(e.target)
      if ((slash || ((e.ctrlKey || e.metaKey) && e.shiftKey && e.key.toLowerCase() === 'f')) && !modalOpen) {
        e.preventDefault()
        setDialog('search')
        return
      }
      if (e.key === '?' && !e.ctrlKey && !e.metaKey && !e.altKey && !modalOpen && !isTextField(e.target)) {
        e.preventDefault()
        setDialog('shortcuts')
        return
      }
      if (e.key === 'Escape' && !modalOpen) {
        if (drawer) {
          e.preventDefault()
          closeDrawer()
        } else if (side) {
          e.preventDefault()
          setSide(undefined)
        }
      }
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [groups, groupKey, go, drawer, closeDrawer, side, setSide])

  const sheet = phone && handle !== undefined && side !== undefined
  return (
    <div className="app">
      <ConnectionBanner state={snap.connection} />
      <div className={drawerOpen ? 'shell drawer-open' : 'shell'} ref={shellRef}>
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
          ref={sidebarRef}
          currentKey={groupKey}
          drawer={phone ? { open: drawerOpen, onClose: () => closeDrawer() } : undefined}
          onOpen={open}
          onJoin={() => {
            if (drawer) closeDrawer(false)
            setJoinInput(undefined)
            setDialog('join')
          }}
          onBrowse={() => {
            if (drawer) closeDrawer(false)
            go({ type: 'browse' })
          }}
          onCreate={() => {
            if (drawer) closeDrawer(false)
            setDialog('create')
          }}
          onSettings={() => {
            if (drawer) closeDrawer(false)
            setDialog('settings')
          }}
          onShortcuts={() => {
            if (drawer) closeDrawer(false)
            setDialog('shortcuts')
          }}
        />
        {drawerOpen ? (
          // A tap beside the drawer closes it; keyboard users have Escape and the close button.
          <div className="drawer-scrim" aria-hidden="true" onClick={() => closeDrawer()} />
        ) : null}
        {handle ? (
          <GroupView
            key={handle.key}
            handle={handle}
            me={snap.session.pubkey}
            side={side}
            onSide={setSide}
            onMenu={openDrawer}
            covered={drawerOpen || sheet}
            onSearch={() => setDialog('search')}
            reveal={reveal?.key === handle.key ? reveal.request : undefined}
            onLeave={async () => {
              const answer = await app.leave(handle.key)
              if (answer.ok) go({ type: 'home' })
              return answer
            }}
          />
        ) : route.type === 'browse' ? (
          <main className="main" id="main" tabIndex={-1} inert={drawerOpen}>
            <PhoneBar title="Browse groups" onMenu={openDrawer} />
            <BrowseView onOpen={open} />
          </main>
        ) : !snap.loaded ? (
          // The cached groups are being read: nothing to say about them yet (a reload of a
          // group shows it next, not the welcome page first).
          <main className="main" id="main" tabIndex={-1} aria-busy="true" />
        ) : (
          <Home
            firstRun={snap.groups.length === 0}
            covered={drawerOpen}
            onMenu={openDrawer}
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
      </div>
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
      {dialog === 'shortcuts' ? <ShortcutsDialog onClose={closeDialog} /> : null}
      {dialog === 'search' ? (
        <SearchDialog
          groupKey={handle?.key}
          onClose={closeDialog}
          onOpen={(r) => {
            setDialog(undefined)
            open(r.group)
            if (r.thread) setSideState({ key: r.group, panel: { type: 'thread', rootId: r.thread } })
            else setReveal((prev) => ({ key: r.group, request: { id: r.id, n: (prev?.request.n ?? 0) + 1 } }))
          }}
        />
      ) : null}
      {dialog === 'switcher' ? (
        <QuickSwitcher
          groups={snap.groups}
          onClose={closeDialog}
          onOpen={(key) => {
            setDialog(undefined)
            open(key)
            focusMain()
          }}
        />
      ) : null}
    </div>
  )
}
