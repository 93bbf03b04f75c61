import { UploadError } from '@roost/client'
import { type FormEvent, useId, useState } from 'react'
import { useApp, useAppSnapshot, useProfile } from '../hooks'
import { safeHttpUrl } from '../lib/safe-url'
import type { Answer } from '../model/types'
import { Avatar } from './Avatar'
import { AnswerNotice } from './Dialog'

/** Edits your kind 0 profile: name, picture (uploaded to your Blossom server, or a URL) and about. */
export function ProfileEditor() {
  const app = useApp()
  const snap = useAppSnapshot()
  const profile = useProfile(snap.session.pubkey)
  const [name, setName] = useState(profile?.name ?? '')
  const [about, setAbout] = useState(profile?.about ?? '')
  const [picture, setPicture] = useState(profile?.picture ?? '')
  const [uploading, setUploading] = useState<number>()
  const [answer, setAnswer] = useState<Answer>()
  const ids = { name: useId(), about: useId(), picture: useId(), file: useId() }
  // Upload to the relay of a group we are in (its Blossom takes members), unless Settings names a server.
  const relay = snap.groups.find((g) => g.access.status === 'member')?.relay ?? snap.relays[0] ?? ''

  async function upload(file: File | undefined) {
    if (!file) return
    if (!file.type.startsWith('image/')) {
      setAnswer({ ok: false, message: 'A profile picture must be an image.' })
      return
    }
    setAnswer(undefined)
    setUploading(0)
    try {
      const media = await app.upload(file, relay, (sent, total) => setUploading(total ? sent / total : 0))
      setPicture(media.url)
    } catch (err) {
      setAnswer({
        ok: false,
        message:
          err instanceof UploadError ? `Upload failed: ${err.reason}` : String((err as Error).message ?? err),
      })
    } finally {
      setUploading(undefined)
    }
  }

  async function save(e: FormEvent) {
    e.preventDefault()
    if (picture.trim() && !safeHttpUrl(picture)) {
      setAnswer({ ok: false, message: 'The picture must be an http(s) URL.' })
      return
    }
    setAnswer(
      await app.setProfile({
        name: name.trim(),
        ...(picture.trim() ? { picture: picture.trim() } : {}),
        ...(about.trim() ? { about: about.trim() } : {}),
      }),
    )
  }

  return (
    <form className="profile-editor" onSubmit={save} aria-label="Edit profile">
      <div className="field">
        <label htmlFor={ids.name}>Display name</label>
        <input
          id={ids.name}
          type="text"
          value={name}
          maxLength={100}
          onChange={(e) => setName(e.target.value)}
        />
      </div>
      <div className="field">
        <span id={ids.picture}>Picture</span>
        <div className="picture-row">
          <Avatar name={name || '?'} seed={snap.session.pubkey} picture={picture} size={48} trusted />
          <button
            type="button"
            className="btn small"
            disabled={uploading !== undefined}
            onClick={() => document.getElementById(ids.file)?.click()}
          >
            {uploading === undefined ? 'Upload a picture' : `Uploading… ${Math.round(uploading * 100)}%`}
          </button>
          <input
            id={ids.file}
            type="file"
            accept="image/*"
            hidden
            aria-label="Upload a picture"
            onChange={(e) => void upload(e.target.files?.[0])}
          />
        </div>
        <input
          type="url"
          aria-label="Picture URL"
          placeholder="https://…"
          value={picture}
          onChange={(e) => setPicture(e.target.value)}
        />
      </div>
      <div className="field">
        <label htmlFor={ids.about}>About</label>
        <textarea
          id={ids.about}
          rows={3}
          value={about}
          maxLength={1000}
          onChange={(e) => setAbout(e.target.value)}
        />
      </div>
      <button type="submit" className="btn primary" disabled={uploading !== undefined}>
        Save profile
      </button>
      <AnswerNotice answer={answer} okText="Profile published." />
    </form>
  )
}
