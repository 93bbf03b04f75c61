import { Component, type ReactNode } from 'react'

/** Shows what went wrong instead of a blank page, with a way back. */
export class ErrorBoundary extends Component<{ children: ReactNode }, { error?: Error }> {
  override state: { error?: Error } = {}

  static getDerivedStateFromError(error: Error) {
    return { error }
  }

  override render() {
    if (!this.state.error) return this.props.children
    return (
      <main className="signin">
        <div className="signin-card" role="alert">
          <h1 className="brand">Something went wrong</h1>
          <p className="mono">{this.state.error.message}</p>
          <button type="button" className="btn primary" onClick={() => location.reload()}>
            Reload
          </button>
        </div>
      </main>
    )
  }
}
