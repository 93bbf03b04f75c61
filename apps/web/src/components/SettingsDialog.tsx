import { nip19 } from 'nostr-tools'
import { type FormEvent, useId, useState } from 'react'
import { useApp, useAppSnapshot } from '../hooks'
import type { Answer } from '../model/types'
import { AnswerNotice, Dialog } from './Dialog'
import { MediaSettings } from './MediaSettings'
import { ProfileEditor } from './ProfileEditor'
import { ReadStateNote } from './ReadStateNote'

/** Account (npub, nsec export, profile name), relays, read-state and notification settings. */
export function SettingsDialog(props: { onClose: () => void }) {
  const app = useApp()
  const snap = useAppSnapshot()
  const [relay, setRelay] = useState('')
  const [relayAnswer, setRelayAnswer] = useState<Answer>()
  const [listAnswer, setListAnswer] = useState<Answer>()
  const [publishing, setPublishing] = useState(false)
  const [showNsec, setShowNsec] = useState(false)
  const [permission, setPermission] = useState(() =>
    typeof Notification === 'undefined' ? 'unsupported' : Notification.permission,
  )
  const ids = { relay: useId() }
  const npub = nip19.npubEncode(snap.session.pubkey)

  function addRelay(e: FormEvent) {
    e.preventDefault()
    const answer = app.addRelay(relay.trim())
    setRelayAnswer(answer)
    if (answer.ok) setRelay('')
  }
  async function publishRelayList() {
    setPublishing(true)
    setListAnswer(await app.publishRelayList())
    setPublishing(false)
  }
  async function toggleNotifications(on: boolean) {
    if (on && typeof Notification !== 'undefined' && Notification.permission === 'default') {
      setPermission(await Notification.requestPermission())
    }
    app.setSettings({ notifications: on })
  }

  return (
    <Dialog title="Settings" onClose={props.onClose} wide>
      <section aria-labelledby="acct">
        <h3 id="acct">Account</h3>
        <p className="mono">{npub}</p>
        <p className="hint">
          Signed in with{' '}
          {snap.session.method === 'local'
            ? 'a key kept in this browser'
            : snap.session.method === 'nip07'
              ? 'a browser extension'
              : 'a remote signer'}
          .
        </p>
        {snap.session.nsec ? (
          <div className="row" style={{ marginBottom: 8 }}>
            <button
              type="button"
              className="btn small"
              onClick={() => setShowNsec((v) => !v)}
              aria-expanded={showNsec}
            >
              {showNsec ? 'Hide secret key' : 'Export secret key (nsec)'}
            </button>
          </div>
        ) : null}
        {showNsec && snap.session.nsec ? <p className="notice warn mono">{snap.session.nsec}</p> : null}
        <ProfileEditor />
      </section>
      <MediaSettings />
      <section aria-labelledby="relays">
        <h3 id="relays">Relays</h3>
        <ul className="member-list">
          {snap.relays.map((r) => (
            <li key={r}>
              <span className="mname mono">{r}</span>
              <span className="hint">{snap.auth[r] === 'authenticated' ? 'authenticated' : ''}</span>
              {snap.relays.length > 1 ? (
                <button
                  type="button"
                  className="btn small"
                  onClick={() => app.removeRelay(r)}
                  aria-label={`Remove ${r}`}
                >
                  Remove
                </button>
              ) : null}
            </li>
          ))}
        </ul>
        <form onSubmit={addRelay} className="row" style={{ padding: 0, alignItems: 'flex-end' }}>
          <div className="field" style={{ flex: 1, marginBottom: 0 }}>
            <label htmlFor={ids.relay}>Add a relay</label>
            <input
              id={ids.relay}
              type="text"
              placeholder="wss://relay.example.com"
              value={relay}
              onChange={(e) => setRelay(e.target.value)}
            />
          </div>
          <button type="submit" className="btn" disabled={!relay.trim()}>
            Add
          </button>
        </form>
        <p className="hint">
          Browse and join groups on a new relay right away; your group list and read state use it at once.
        </p>
        {relayAnswer && !relayAnswer.ok ? <AnswerNotice answer={relayAnswer} /> : null}
        {snap.relayList === 'none' || listAnswer ? (
          <div>
            {snap.relayList === 'none' ? (
              <p className="hint">
                You have no relay list (NIP-65) yet, so other Nostr apps cannot find your groups and read
                state. Publish one naming the relays above?
              </p>
            ) : null}
            {snap.relayList === 'none' ? (
              <button type="button" className="btn" disabled={publishing} onClick={publishRelayList}>
                Publish my relay list
              </button>
            ) : null}
            <AnswerNotice answer={listAnswer} okText="Relay list published." />
          </div>
        ) : null}
      </section>
      <section aria-labelledby="privacy">
        <h3 id="privacy">Read state and notifications</h3>
        <ReadStateNote />
        <label className="check">
          <input
            type="checkbox"
            checked={snap.settings.readStateLocalOnly}
            onChange={(e) => app.setSettings({ readStateLocalOnly: e.target.checked })}
          />
          <span>
            Keep read state on this device only
            <br />
            <span className="hint">
              Otherwise it syncs, encrypted to yourself, so your other devices clear badges too.
            </span>
          </span>
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={snap.settings.notifications && permission === 'granted'}
            disabled={permission === 'unsupported' || permission === 'denied'}
            onChange={(e) => void toggleNotifications(e.target.checked)}
          />
          <span>
            Desktop notifications for new messages while this tab is hidden
            {permission === 'denied' ? (
              <span className="hint"> (blocked in the browser settings)</span>
            ) : null}
          </span>
        </label>
      </section>
      <div className="row end" style={{ marginTop: 16 }}>
        <button type="button" className="btn danger" onClick={() => void app.signOut()}>
          Sign out
        </button>
      </div>
    </Dialog>
  )
}
