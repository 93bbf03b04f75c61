import { blossomServerFor } from '@roost/client'
import { type FormEvent, useId, useState } from 'react'
import { useApp, useAppSnapshot } from '../hooks'
import { safeHttpUrl } from '../lib/safe-url'
import type { Answer } from '../model/types'
import { AnswerNotice } from './Dialog'

/**
 * Media settings: the Blossom server uploads go to (default: each group's relay's, on the media
 * origin its NIP-11 names), and whether images from other hosts load without a click.
 */
export function MediaSettings() {
  const app = useApp()
  const snap = useAppSnapshot()
  const [server, setServer] = useState(snap.settings.blossomServer ?? '')
  const [answer, setAnswer] = useState<Answer>()
  const ids = { server: useId(), all: useId() }
  const first = snap.relays[0]
  const fallback = first ? (snap.mediaServers[first] ?? blossomServerFor(first)) : 'the group’s relay'

  function save(e: FormEvent) {
    e.preventDefault()
    const value = server.trim()
    if (value && !safeHttpUrl(value)) {
      setAnswer({ ok: false, message: 'A Blossom server is an http(s) URL, like https://blossom.example.' })
      return
    }
    const origin = value ? new URL(value).origin : undefined
    app.setSettings({ blossomServer: origin })
    setServer(origin ?? '')
    setAnswer({
      ok: true,
      message: origin ? `Uploads go to ${origin}.` : 'Uploads go to each group’s relay.',
    })
  }

  return (
    <section aria-labelledby="media-settings">
      <h3 id="media-settings">Images and files</h3>
      <form onSubmit={save} className="row" style={{ padding: 0, alignItems: 'flex-end' }}>
        <div className="field" style={{ flex: 1, marginBottom: 0 }}>
          <label htmlFor={ids.server}>Blossom server</label>
          <input
            id={ids.server}
            type="url"
            placeholder={fallback}
            value={server}
            onChange={(e) => setServer(e.target.value)}
          />
        </div>
        <button type="submit" className="btn">
          Save server
        </button>
      </form>
      <p className="hint">
        Empty: each group’s relay keeps your uploads. Images from your servers load at once.
      </p>
      <AnswerNotice answer={answer} />
      <label className="check" htmlFor={ids.all}>
        <input
          id={ids.all}
          type="checkbox"
          checked={snap.settings.loadAllImages === true}
          onChange={(e) => app.setSettings({ loadAllImages: e.target.checked })}
        />{' '}
        Load images from any host without asking (each load tells that host you are reading)
      </label>
    </section>
  )
}
