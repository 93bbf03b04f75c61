import {
  createRoost,
  type Group,
  type GroupSnapshot,
  LocalSigner,
  MemoryEventStore,
  nobleVerifier,
  type Roost,
} from '@roost/client'
import { type GroupKey, InvalidReferenceError } from '@roost/nip29'
import { type RelayHandle, startRelay } from '@roost/relay'
import { Component, type ReactNode } from 'react'
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest'
import { WebSocket } from 'ws'
import {
  type GroupHandle,
  MissingProviderError,
  type ProfileSource,
  RoostProvider,
  type SnapshotSource,
  useGroup,
  useGroupHandle,
  useGroups,
  usePageVisible,
  useProfile,
  useRoost,
  useSnapshot,
  useUnread,
} from '../src'
import { inAct, mount, untilDom, win } from './dom'

const closers: (() => unknown)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

async function relay(): Promise<RelayHandle> {
  const r = await startRelay({ port: 0, db: ':memory:', demo: true })
  closers.push(() => r.close())
  return r
}

function client(url: string): Roost {
  const roost = createRoost({
    signer: LocalSigner.generate(),
    store: new MemoryEventStore(),
    relays: [url],
    pool: {
      websocket: WebSocket as unknown as typeof globalThis.WebSocket,
      verifier: nobleVerifier,
      publishTimeout: 5_000,
      eoseTimeout: 5_000,
    },
  })
  closers.push(() => roost.close())
  return roost
}

function GroupList() {
  const groups = useGroups()
  return (
    <ul data-testid="groups">
      {groups.length === 0 ? (
        <li>no groups</li>
      ) : (
        groups.map((g) => <li key={g.key.toString()}>{g.key.id.value}</li>)
      )}
    </ul>
  )
}

function GroupPanel({ id }: { id: string }) {
  const snap = useGroup(id)
  const unread = useUnread(id)
  if (!snap) return <p>not joined</p>
  return (
    <section>
      <p>
        {snap.id} {snap.membership.status} unread:{unread}
      </p>
      <ol>
        {snap.messages.map((m) => (
          <li key={m.event.id}>{m.event.content}</li>
        ))}
      </ol>
    </section>
  )
}

/** An error boundary that shows what a child threw and keeps it for the test. */
class Catch extends Component<{ into: unknown[]; children: ReactNode }, { error?: Error }> {
  override state: { error?: Error } = {}
  static getDerivedStateFromError(error: Error) {
    return { error }
  }
  override componentDidCatch(error: Error) {
    this.props.into.push(error)
  }
  override render() {
    return this.state.error ? `failed:${this.state.error.message}` : this.props.children
  }
}

function ByObject({ g }: { g: Group | undefined }) {
  const snap = useGroup(g)
  return <p>{snap ? `${snap.id}:${snap.messages.length > 0}` : 'none'}</p>
}

/** Shows a group and writes to it from one hook: the handle for a key. */
function Composer({ id }: { id: string }) {
  const { group, snapshot } = useGroupHandle(id)
  if (!group) return <p>joining</p>
  return (
    <section>
      <button type="button" onClick={() => void group.sendMessage('sent from the handle')}>
        send
      </button>
      <ol>
        {snapshot.messages.map((m) => (
          <li key={m.id}>{m.content}</li>
        ))}
      </ol>
    </section>
  )
}

/** Given the Group, useGroup's snapshot is never undefined. */
function Count({ group }: { group: Group }) {
  return <b>{useGroup(group).messages.length}</b>
}

function NeedsHandle() {
  useGroupHandle("wss://r.example'x")
  return null
}

function NeedsRoost() {
  useRoost()
  return null
}

function NeedsGroups() {
  useGroups()
  return null
}

function NeedsKey() {
  useGroup("wss://r.example'x")
  return null
}

function NeedsProfiles() {
  useProfile('ab'.repeat(32))
  return null
}

function Bad() {
  useGroup('not a group key')
  return null
}

/** A profile book as an app keeps one: names by pubkey, listeners told on change. */
class Book implements ProfileSource<{ name: string }> {
  private readonly listeners = new Set<() => void>()
  private readonly profiles = new Map<string, { name: string }>()
  asked: string[] = []
  get size() {
    return this.listeners.size
  }
  subscribe(fn: () => void) {
    this.listeners.add(fn)
    return () => void this.listeners.delete(fn)
  }
  profile(pubkey: string) {
    this.asked.push(pubkey)
    return this.profiles.get(pubkey)
  }
  set(pubkey: string, name: string) {
    this.profiles.set(pubkey, { name })
    for (const l of this.listeners) l()
  }
}

function Name({ pubkey, source }: { pubkey: string; source?: Book }) {
  const p = useProfile(pubkey, source)
  return <span>{p?.name ?? 'unknown'}</span>
}

function Counter({ source, renders }: { source: SnapshotSource<{ n: number }>; renders: { count: number } }) {
  renders.count++
  return <b>{useSnapshot(source).n}</b>
}

function Visible() {
  return <i>{usePageVisible() ? 'visible' : 'hidden'}</i>
}

function notify(listeners: Set<() => void>) {
  for (const l of listeners) l()
}

function Total() {
  return <p>total:{useUnread()}</p>
}

describe('@roost/react against a real relay', () => {
  it('follows the account’s groups, a group’s messages and its unread count as they change', async () => {
    const r = await relay()
    const alice = client(r.url)
    const bob = client(r.url)
    const key = `${r.url}'general`
    const view = mount(
      <RoostProvider roost={alice}>
        <GroupList />
        <GroupPanel id={key} />
        <Total />
      </RoostProvider>,
    )
    closers.push(() => inAct(() => view.root.unmount()))
    await untilDom(view.el, () => view.text().includes('no groups') && view.text().includes('not joined'))

    const group = await alice.groups.join(key)
    await untilDom(view.el, () => view.text().includes('general member'))
    expect(view.el.querySelector('[data-testid=groups]')?.textContent).toBe('general')

    // Everything already there is read once marked; then one new message from bob is unread.
    await untilDom(view.el, () => group.snapshot().messages.length > 0)
    group.markRead()
    await untilDom(view.el, () => view.text().includes('unread:0') && view.text().includes('total:0'))

    const bobs = await bob.groups.join(key)
    await bobs.sendMessage('hello from bob')
    await untilDom(view.el, () => view.text().includes('hello from bob'))
    await untilDom(view.el, () => view.text().includes('unread:1') && view.text().includes('total:1'))

    group.markRead()
    await untilDom(view.el, () => view.text().includes('unread:0') && view.text().includes('total:0'))

    await alice.groups.leave(key)
    await untilDom(view.el, () => view.text().includes('no groups') && view.text().includes('not joined'))
    expect(view.errors).toEqual([])
  })

  it('useGroup takes the Group itself, and nothing', async () => {
    const r = await relay()
    const alice = client(r.url)
    const group = await alice.groups.join(`${r.url}'general`)
    // No provider needed when the hook is handed the group.
    const view = mount(<ByObject g={group} />)
    closers.push(() => inAct(() => view.root.unmount()))
    await untilDom(view.el, () => view.text() === 'general:true')
    await inAct(() => view.root.render(<ByObject g={undefined} />))
    expect(view.text()).toBe('none')
  })
})

describe('useGroupHandle and useGroup(group)', () => {
  it('types: a Group gives a GroupSnapshot; a key gives the group and its snapshot, both or neither', () => {
    expectTypeOf(useGroup).parameter(0).toEqualTypeOf<Group | GroupKey | string | undefined>()
    expectTypeOf<ReturnType<typeof useGroupHandle>>().toEqualTypeOf<GroupHandle>()
    const typed = (group: Group, key: string, maybe: Group | undefined) => {
      expectTypeOf(useGroup(group)).toEqualTypeOf<GroupSnapshot>()
      expectTypeOf(useGroup(key)).toEqualTypeOf<GroupSnapshot | undefined>()
      expectTypeOf(useGroup(maybe)).toEqualTypeOf<GroupSnapshot | undefined>()
      const handle = useGroupHandle(key)
      expectTypeOf(handle.group).toEqualTypeOf<Group | undefined>()
      const { group: g, snapshot } = handle
      if (g) expectTypeOf(snapshot).toEqualTypeOf<GroupSnapshot>()
      else expectTypeOf(snapshot).toEqualTypeOf<undefined>()
    }
    expect(typed).toBeTypeOf('function') // checked by tsc, never called
  })

  it('a handle for a key: nothing until joined, then the snapshot to show and the group to write to', async () => {
    const r = await relay()
    const alice = client(r.url)
    const key = `${r.url}'general`
    const view = mount(
      <RoostProvider roost={alice}>
        <Composer id={key} />
      </RoostProvider>,
    )
    closers.push(() => inAct(() => view.root.unmount()))
    await untilDom(view.el, () => view.text() === 'joining')
    const group = await alice.groups.join(key)
    await untilDom(view.el, () => view.el.querySelector('button') !== null)
    await inAct(() => view.el.querySelector('button')!.click())
    await untilDom(view.el, () => view.text().includes('sent from the handle'))
    expect(group.snapshot().messages.some((m) => m.content === 'sent from the handle')).toBe(true)

    const count = mount(<Count group={group} />)
    closers.push(() => inAct(() => count.root.unmount()))
    await untilDom(count.el, () => Number(count.text()) === group.snapshot().messages.length)
    expect(view.errors).toEqual([])
  })

  it('without a provider, useGroupHandle says which prop is missing', async () => {
    const caught: unknown[] = []
    const view = mount(
      <Catch into={caught}>
        <NeedsHandle />
      </Catch>,
    )
    await untilDom(view.el, () => view.text().startsWith('failed:'))
    expect(view.text()).toBe('failed:useGroupHandle needs <RoostProvider roost={…}> above it')
    await inAct(() => view.root.unmount())
  })
})

describe('@roost/react without a relay', () => {
  it('hooks that need a client say which provider prop is missing', async () => {
    for (const [Component, hook, prop] of [
      [NeedsRoost, 'useRoost', 'roost'],
      [NeedsGroups, 'useRoost', 'roost'],
      [NeedsKey, 'useGroup', 'roost'],
      [NeedsProfiles, 'useProfile', 'profiles'],
    ] as const) {
      const caught: unknown[] = []
      const view = mount(
        <Catch into={caught}>
          <Component />
        </Catch>,
      )
      await untilDom(view.el, () => view.text().startsWith('failed:'))
      expect(view.text()).toBe(`failed:${hook} needs <RoostProvider ${prop}={…}> above it`)
      const err = caught[0] as MissingProviderError
      expect(err).toBeInstanceOf(MissingProviderError)
      expect([err.code, err.hook, err.prop]).toEqual(['missing-provider', hook, prop])
      await inAct(() => view.root.unmount())
    }
  })

  it('useGroup refuses a key that is not a group key with the typed error', async () => {
    const r = await relay()
    const alice = client(r.url)
    const caught: unknown[] = []
    const view = mount(
      <RoostProvider roost={alice}>
        <Catch into={caught}>
          <Bad />
        </Catch>
      </RoostProvider>,
    )
    await untilDom(view.el, () => view.text().startsWith('failed:'))
    expect(caught[0]).toBeInstanceOf(InvalidReferenceError)
    await inAct(() => view.root.unmount())
  })

  it('useProfile follows a profile source, from the provider or passed in', async () => {
    const book = new Book()
    const other = new Book()
    const pk = 'a'.repeat(64)
    const view = mount(
      <RoostProvider profiles={book}>
        <Name pubkey={pk} />|<Name pubkey={pk} source={other} />
      </RoostProvider>,
    )
    await untilDom(view.el, () => view.text() === 'unknown|unknown')
    expect(book.asked).toContain(pk)
    await inAct(() => book.set(pk, 'Alice'))
    expect(view.text()).toBe('Alice|unknown')
    await inAct(() => other.set(pk, 'Bob'))
    expect(view.text()).toBe('Alice|Bob')
    await inAct(() => view.root.unmount())
    expect([book.size, other.size]).toEqual([0, 0])
  })

  it('useSnapshot re-renders only when the snapshot changes and unsubscribes on unmount', async () => {
    let value = { n: 0 }
    const listeners = new Set<() => void>()
    const source = {
      subscribe(fn: () => void) {
        listeners.add(fn)
        return () => void listeners.delete(fn)
      },
      snapshot: () => value,
    }
    const renders = { count: 0 }
    const view = mount(<Counter source={source} renders={renders} />)
    await untilDom(view.el, () => view.text() === '0')
    const before = renders.count
    await inAct(() => notify(listeners)) // a change signal with the same snapshot
    expect(renders.count).toBe(before)
    value = { n: 1 }
    await inAct(() => notify(listeners))
    expect(view.text()).toBe('1')
    await inAct(() => view.root.unmount())
    expect(listeners.size).toBe(0)
  })

  it('usePageVisible follows document.visibilityState', async () => {
    const view = mount(<Visible />)
    await untilDom(view.el, () => view.text() === 'visible')
    const set = (state: 'visible' | 'hidden') => {
      Object.defineProperty(document, 'visibilityState', { value: state, configurable: true })
      win.document.dispatchEvent(new win.Event('visibilitychange'))
    }
    await inAct(() => set('hidden'))
    expect(view.text()).toBe('hidden')
    await inAct(() => set('visible'))
    expect(view.text()).toBe('visible')
    await inAct(() => view.root.unmount())
  })
})
