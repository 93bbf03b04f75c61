import { useProfile } from '../hooks'
import { shortNpub } from '../lib/format'
import { Avatar } from './Avatar'

/** The display name from kind 0, else a short npub. */
export function useDisplayName(pubkey: string): string {
  const profile = useProfile(pubkey)
  const name = profile?.name?.trim()
  return name ? name : shortNpub(pubkey)
}

export function PersonAvatar(props: { pubkey: string; size?: number }) {
  const profile = useProfile(props.pubkey)
  const name = useDisplayName(props.pubkey)
  return <Avatar name={name} seed={props.pubkey} picture={profile?.picture} size={props.size} />
}

export function PersonName(props: { pubkey: string; className?: string }) {
  const name = useDisplayName(props.pubkey)
  return (
    <span className={props.className} title={props.pubkey}>
      {name}
    </span>
  )
}
