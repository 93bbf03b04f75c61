// First: the cache's reads start while everything below is evaluated.
import './boot'
import { StrictMode, useCallback, useEffect, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { ErrorBoundary } from './components/ErrorBoundary'
import { SignIn } from './components/SignIn'
import { AppContext } from './hooks'
import type { AppApi } from './model/api'
import { createRoostApp } from './model/roost-app'
import { defaultRelay, forget, generateKey, type OpenSession, restore, signIn } from './model/session'
import { dropPrepaint, keepPrepaint, watchPrepaint } from './prepaint/keep'
import './styles.css'

// The last view the page's first script put back on screen goes when this app has painted its own.
watchPrepaint()

function Root() {
  const [app, setApp] = useState<AppApi>()
  const [ready, setReady] = useState(false)

  const start = useCallback(async (session: OpenSession) => {
    const next = await createRoostApp(session, {
      onSignOut: () => {
        forget()
        setApp(undefined)
      },
    })
    setApp(next)
  }, [])

  useEffect(() => {
    restore()
      .then((session) => (session ? start(session) : undefined))
      .finally(() => setReady(true))
  }, [start])
  // Signed in: what the group shows is kept for the next load. Not signed in: no copy stays up.
  useEffect(() => (app ? keepPrepaint(app) : undefined), [app])
  useEffect(() => {
    if (ready && !app) dropPrepaint()
  }, [ready, app])

  if (!ready) return <p className="timeline-empty">Loading…</p>
  if (!app)
    return (
      <SignIn
        defaultRelay={defaultRelay()}
        generate={generateKey}
        onSignIn={async (request) => start(await signIn(request))}
      />
    )
  return (
    <AppContext.Provider value={app}>
      <App />
    </AppContext.Provider>
  )
}

// The service worker caches the app shell so the installed app opens offline (production builds
// only: in `vite dev` it would cache files that change on every edit).
if (import.meta.env.PROD && 'serviceWorker' in navigator) {
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js').catch(() => undefined)
  })
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ErrorBoundary>
      <Root />
    </ErrorBoundary>
  </StrictMode>,
)
