import { StrictMode, useCallback, useEffect, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { ErrorBoundary } from './components/ErrorBoundary'
import { SignIn } from './components/SignIn'
import { AppContext } from './hooks'
import type { AppApi } from './model/api'
import { createRoostApp } from './model/roost-app'
import { defaultRelay, forget, generateKey, type OpenSession, restore, signIn } from './model/session'
import './styles.css'

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

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ErrorBoundary>
      <Root />
    </ErrorBoundary>
  </StrictMode>,
)
