import { nip19 } from 'nostr-tools'
import { useEffect, useState } from 'react'
import { useApp, useAppSnapshot, useProfile } from '../hooks'
import { cleanName } from '../lib/names'
import type { Member } from '../model/types'
import { Avatar, PictureConsent } from './Avatar'
import { Dialog } from './Dialog'
import { PersonName, useDisplayName } from './Name'
import { ProfileEditor } from './ProfileEditor'

/**
 * A person's card: picture, name, about, npub (with copy) and the roles they hold in this group.
 * On your own card, your profile can be edited.
 */
export function ProfileCard(props: {
  pubkey: string
  member?: Member
  membersKnown: boolean
  onClose: () => void
}) {
  const snap = useAppSnapshot()
  const profile = useProfile(props.pubkey)
  const name = useDisplayName(props.pubkey)
  const [copied, setCopied] = useState(false)
  const [editing, setEditing] = useState(false)
  const npub = nip19.npubEncode(props.pubkey)
  const mine = props.pubkey === snap.session.pubkey
  const app = useApp()
  useEffect(() => app.refreshProfile(props.pubkey), [app, props.pubkey])
  const roles = props.member?.roles.length ? props.member.roles : props.member ? ['member'] : []
  const about = cleanName(profile?.about ?? '') ? profile?.about : undefined
  async function copy() {
    await navigator.clipboard?.writeText(npub).catch(() => undefined)
    setCopied(true)
  }
  return (
    <Dialog title="Profile" onClose={props.onClose}>
      <div className="profile-card" data-testid="profile-card">
        <div className="profile-head">
          <Avatar name={name} seed={props.pubkey} picture={profile?.picture} size={72} trusted={mine} />
          <p className="profile-name">
            <PersonName pubkey={props.pubkey} />
            {mine ? <span className="hint"> (you)</span> : null}
          </p>
        </div>
        <PictureConsent picture={profile?.picture} trusted={mine} />
        {about ? (
          <p className="profile-about" dir="auto">
            {about}
          </p>
        ) : null}
        <div className="npub-row">
          <code data-testid="profile-npub" title={npub}>
            <span className="npub-head">{npub.slice(0, -8)}</span>
            <span className="npub-tail">{npub.slice(-8)}</span>
          </code>
          <button type="button" className="btn small" onClick={() => void copy()}>
            {copied ? 'Copied' : 'Copy npub'}
          </button>
        </div>
        <h3>Roles in this group</h3>
        {roles.length > 0 ? (
          <ul className="roles" aria-label="Roles in this group">
            {roles.map((r) => (
              <li key={r} className="chip">
                <bdi>{cleanName(r)}</bdi>
              </li>
            ))}
          </ul>
        ) : (
          <p className="hint">
            {props.membersKnown ? 'Not a member of this group.' : 'The relay does not list members.'}
          </p>
        )}
        {mine ? (
          editing ? (
            <ProfileEditor />
          ) : (
            <button type="button" className="btn" onClick={() => setEditing(true)}>
              Edit profile
            </button>
          )
        ) : null}
      </div>
    </Dialog>
  )
}
