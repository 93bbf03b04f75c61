import { type FormEvent, useId, useState } from 'react'
import type { SignInRequest } from '../model/session'

type Tab = 'create' | 'nsec' | 'nip07' | 'nip46'

const TABS: { id: Tab; label: string }[] = [
  { id: 'create', label: 'New key' },
  { id: 'nsec', label: 'Secret key' },
  { id: 'nip07', label: 'Extension' },
  { id: 'nip46', label: 'Remote signer' },
]

/**
 * The first screen: make a key (kept in this browser, with its nsec shown for export), paste
 * an nsec, use a NIP-07 extension, or connect a NIP-46 bunker. The relay defaults to the one
 * that served the page.
 */
export function SignIn(props: {
  defaultRelay: string
  generate: () => { nsec: string; npub: string }
  onSignIn: (request: SignInRequest) => Promise<void>
}) {
  const [tab, setTab] = useState<Tab>('create')
  const [relay, setRelay] = useState(props.defaultRelay)
  const [name, setName] = useState('')
  const [generated, setGenerated] = useState<{ nsec: string; npub: string }>()
  const [saved, setSaved] = useState(false)
  const [nsec, setNsec] = useState('')
  const [bunker, setBunker] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const [copied, setCopied] = useState(false)
  const ids = { relay: useId(), name: useId(), nsec: useId(), bunker: useId(), panel: useId() }
  const hasExtension = typeof window !== 'undefined' && 'nostr' in window && window.nostr != null

  async function submit(request: SignInRequest) {
    setBusy(true)
    setError(undefined)
    try {
      await props.onSignIn(request)
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
      setBusy(false)
    }
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault()
    const relays = [relay.trim()].filter(Boolean)
    if (tab === 'create') {
      if (!generated) {
        setGenerated(props.generate())
        return
      }
      void submit({ method: 'local', secret: generated.nsec, relays, name: name.trim() || undefined })
    } else if (tab === 'nsec') void submit({ method: 'local', secret: nsec.trim(), relays })
    else if (tab === 'nip07') void submit({ method: 'nip07', relays })
    else void submit({ method: 'nip46', bunker: bunker.trim(), relays })
  }

  async function copy() {
    if (!generated) return
    await navigator.clipboard?.writeText(generated.nsec).catch(() => undefined)
    setCopied(true)
  }

  return (
    <main className="signin">
      <div className="signin-card">
        <h1 className="brand">
          <img src="/favicon.svg" alt="" /> Roost
        </h1>
        <p className="lede">Group chat on Nostr relays. Your key is your account; no email, no password.</p>
        <div className="tabs" role="tablist" aria-label="How to sign in">
          {TABS.map((t) => (
            <button
              key={t.id}
              type="button"
              role="tab"
              className="tab"
              id={`tab-${t.id}`}
              aria-selected={tab === t.id}
              aria-controls={ids.panel}
              onClick={() => {
                setTab(t.id)
                setError(undefined)
              }}
            >
              {t.label}
            </button>
          ))}
        </div>
        <form role="tabpanel" id={ids.panel} aria-labelledby={`tab-${tab}`} onSubmit={onSubmit}>
          {tab === 'create' && !generated ? (
            <>
              <div className="field">
                <label htmlFor={ids.name}>Display name (optional)</label>
                <input
                  id={ids.name}
                  type="text"
                  value={name}
                  autoComplete="nickname"
                  onChange={(e) => setName(e.target.value)}
                />
              </div>
              <p className="hint">A new key is created and kept in this browser.</p>
            </>
          ) : null}
          {tab === 'create' && generated ? (
            <>
              <div className="field">
                <span className="label" id={`${ids.nsec}-label`}>
                  Your secret key (nsec)
                </span>
                <output className="notice warn mono" aria-labelledby={`${ids.nsec}-label`} data-testid="nsec">
                  {generated.nsec}
                </output>
                <span className="hint">
                  It is stored in this browser only. Copy it somewhere safe to sign in on another device;
                  anyone who has it can speak as you.
                </span>
              </div>
              <div className="row" style={{ marginBottom: 12 }}>
                <button type="button" className="btn" onClick={copy}>
                  {copied ? 'Copied' : 'Copy secret key'}
                </button>
              </div>
              <label className="check">
                <input type="checkbox" checked={saved} onChange={(e) => setSaved(e.target.checked)} />
                <span>I have saved my secret key</span>
              </label>
            </>
          ) : null}
          {tab === 'nsec' ? (
            <div className="field">
              <label htmlFor={ids.nsec}>Secret key (nsec)</label>
              <input
                id={ids.nsec}
                type="password"
                placeholder="nsec1…"
                value={nsec}
                autoComplete="off"
                spellCheck={false}
                onChange={(e) => setNsec(e.target.value)}
              />
              <span className="hint">Kept in this browser; never sent anywhere.</span>
            </div>
          ) : null}
          {tab === 'nip07' ? (
            <p className={hasExtension ? 'hint' : 'notice warn'}>
              {hasExtension
                ? 'Your browser extension (NIP-07) will sign and encrypt; Roost never sees your key.'
                : 'No NIP-07 extension found in this browser. Install one (such as nos2x or Alby) and reload.'}
            </p>
          ) : null}
          {tab === 'nip46' ? (
            <div className="field">
              <label htmlFor={ids.bunker}>Bunker URL</label>
              <input
                id={ids.bunker}
                type="text"
                placeholder="bunker://…?relay=wss://…"
                value={bunker}
                spellCheck={false}
                onChange={(e) => setBunker(e.target.value)}
              />
              <span className="hint">From your remote signer (NIP-46). Approve the connection there.</span>
            </div>
          ) : null}
          <div className="field">
            <label htmlFor={ids.relay}>Relay</label>
            <input
              id={ids.relay}
              type="text"
              value={relay}
              spellCheck={false}
              onChange={(e) => setRelay(e.target.value)}
            />
            <span className="hint">
              Where your group list and read state live. More relays can be added later.
            </span>
          </div>
          {error ? (
            <p className="notice error" role="alert">
              {error}
            </p>
          ) : null}
          <div className="row end">
            <button
              type="submit"
              className="btn primary"
              disabled={
                busy ||
                (tab === 'create' && generated != null && !saved) ||
                (tab === 'nsec' && !nsec.trim()) ||
                (tab === 'nip07' && !hasExtension) ||
                (tab === 'nip46' && !bunker.trim())
              }
            >
              {busy
                ? 'Signing in…'
                : tab === 'create'
                  ? generated
                    ? 'Continue'
                    : 'Create my key'
                  : tab === 'nip46'
                    ? 'Connect'
                    : 'Sign in'}
            </button>
          </div>
        </form>
      </div>
    </main>
  )
}
