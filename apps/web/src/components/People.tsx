import { ProfileCard } from './ProfileCard'
import { closeProfileCard, usePeopleState } from './people-store'
import './people.css'

/** The profile card of whoever was clicked in the open group (mounted once, in the group view). */
export function ProfileCardHost() {
  const s = usePeopleState()
  if (!s.opened) return null
  return (
    <ProfileCard
      pubkey={s.opened}
      member={s.members.find((m) => m.pubkey === s.opened)}
      membersKnown={s.membersKnown}
      onClose={closeProfileCard}
    />
  )
}
