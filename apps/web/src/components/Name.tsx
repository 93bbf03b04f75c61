import type { ReactNode } from 'react'
import { useAppSnapshot, useProfile } from '../hooks'
import { npubOf, shortNpub } from '../lib/format'
import { cleanName } from '../lib/names'
import { Avatar } from './Avatar'
import { usePeople } from './people-store'

/** The display name from kind 0 (bidi controls removed), else a short npub. */
export function useDisplayName(pubkey: string): string {
  const profile = useProfile(pubkey)
  const name = cleanName(profile?.name ?? '')
  return name ? name : shortNpub(pubkey)
}

/** The last five characters of a key's npub: what tells two people of the same name apart. */
export function npubSuffix(pubkey: string): string {
  try {
    return npubOf(pubkey).slice(-5)
  } catch {
    return pubkey.slice(-5)
  }
}

export function PersonAvatar(props: { pubkey: string; size?: number; interactive?: boolean }) {
  const profile = useProfile(props.pubkey)
  const name = useDisplayName(props.pubkey)
  const people = usePeople()
  const mine = useAppSnapshot().session.pubkey === props.pubkey
  const avatar = (
    <Avatar name={name} seed={props.pubkey} picture={profile?.picture} size={props.size} trusted={mine} />
  )
  if (!props.interactive || !people) return avatar
  return (
    <button
      type="button"
      className="person-avatar-btn"
      tabIndex={-1}
      onClick={() => people.open(props.pubkey)}
    >
      {avatar}
      <span className="visually-hidden">Profile of {name}</span>
    </button>
  )
}

/**
 * A person's name, isolated (`<bdi>`) so it cannot reorder the text around it. When someone else
 * in view has the same name, a short npub suffix follows it. `interactive` makes it a button that
 * opens the profile card (inside a group).
 */
export function PersonName(props: {
  pubkey: string
  className?: string
  interactive?: boolean
  tabIndex?: number
  /** Shown after the name, inside its button (so a short name's 44 px touch target leaves no gap). */
  suffix?: ReactNode
}) {
  const name = useDisplayName(props.pubkey)
  const people = usePeople()
  const clash = people?.clashes.has(name) ?? false
  const content = (
    <>
      <bdi>{name}</bdi>
      {clash ? (
        <span className="npub-suffix" data-testid="npub-suffix">
          {' '}
          …{npubSuffix(props.pubkey)}
        </span>
      ) : null}
      {props.suffix}
    </>
  )
  if (props.interactive && people) {
    return (
      <button
        type="button"
        className={`person-link ${props.className ?? ''}`}
        title={props.pubkey}
        tabIndex={props.tabIndex}
        onClick={() => people.open(props.pubkey)}
      >
        {content}
      </button>
    )
  }
  return (
    <span className={props.className} title={props.pubkey}>
      {content}
    </span>
  )
}
