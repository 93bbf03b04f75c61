// (c) A browser page on the installed packages: Vite must bundle it without better-sqlite3, ws or
// any node: module.
import { createRoost, IndexedDbEventStore, LocalSigner } from '@roost/client'
import { RoostProvider, useGroups, useUnread } from '@roost/react'
import { createElement as h } from 'react'
import { createRoot } from 'react-dom/client'

function Groups() {
  const groups = useGroups()
  const unread = useUnread()
  return h('p', null, `${groups.length} groups, ${unread} unread`)
}

IndexedDbEventStore.open('roost-consumer').then((store) => {
  const roost = createRoost({ signer: LocalSigner.generate(), store, relays: ['ws://127.0.0.1:7777'] })
  createRoot(document.getElementById('root')).render(h(RoostProvider, { roost }, h(Groups)))
})
