// The React page a newcomer writes from the READMEs: the account's groups with unread counts, one
// group's live messages, a composer. Type-checked with strict tsc (tsconfig.page.json) and built
// by Vite; the bundle must hold no better-sqlite3, ws or node: module.
import { createRoost, type Group, IndexedDbEventStore, LocalSigner, type Message } from '@roost/client'
import { RoostProvider, useGroup, useGroups, useRoost, useUnread } from '@roost/react'
import { type FormEvent, useState } from 'react'
import { createRoot } from 'react-dom/client'

function GroupRow({ group, onOpen }: { group: Group; onOpen: (key: string) => void }) {
  const snap = useGroup(group)
  if (!snap) return null
  return (
    <li>
      <button type="button" onClick={() => onOpen(snap.key.toString())}>
        {snap.metadata?.name ?? snap.id.toString()} {snap.unread > 0 ? `(${snap.unread})` : ''}
      </button>
    </li>
  )
}

function Row({ message }: { message: Message }) {
  return (
    <p>
      <b>{message.pubkey.slice(0, 8)}</b> {message.content}
    </p>
  )
}

function GroupView({ groupKey }: { groupKey: string }) {
  const roost = useRoost()
  const snap = useGroup(groupKey)
  const [text, setText] = useState('')
  if (!snap)
    return (
      <button type="button" onClick={() => roost.groups.join(groupKey)}>
        Join
      </button>
    )
  const send = async (e: FormEvent) => {
    e.preventDefault()
    await roost.groups.group(groupKey)?.sendMessage(text)
    setText('')
  }
  return (
    <section>
      {snap.messages.map((m) => (
        <Row key={m.id} message={m} />
      ))}
      <form onSubmit={send}>
        <input value={text} onChange={(e) => setText(e.target.value)} disabled={!snap.canSend.ok} />
      </form>
    </section>
  )
}

function App() {
  const groups = useGroups()
  const unread = useUnread()
  const [open, setOpen] = useState<string | undefined>()
  return (
    <main>
      <h1>{unread > 0 ? `(${unread}) ` : ''}Groups</h1>
      <ul>
        {groups.map((g) => (
          <GroupRow key={g.key.toString()} group={g} onOpen={setOpen} />
        ))}
      </ul>
      {open && <GroupView groupKey={open} />}
    </main>
  )
}

const roost = createRoost({
  signer: LocalSigner.generate(),
  store: await IndexedDbEventStore.open('roost-consumer'),
  relays: ['ws://127.0.0.1:7777'],
})
const root = document.getElementById('root')
if (!root) throw new Error('no #root element')
createRoot(root).render(
  <RoostProvider roost={roost}>
    <App />
  </RoostProvider>,
)
