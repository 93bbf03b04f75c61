import { useId } from 'react'
import type { ReactionSummary } from '../model/types'
import { useDisplayName } from './Name'
import './reactions.css'

function Who(props: { pubkey: string; last: boolean }) {
  const name = useDisplayName(props.pubkey)
  return (
    <>
      {name}
      {props.last ? '' : ', '}
    </>
  )
}

/**
 * One reaction under a message: the emoji and its count, who reacted on hover and focus (a
 * tooltip that is also the button's description), ours pressed. Clicking ours withdraws it.
 */
export function ReactionChip(props: { reaction: ReactionSummary; tabIndex?: number; onClick: () => void }) {
  const r = props.reaction
  const id = useId()
  const shown = r.pubkeys.slice(0, 12)
  return (
    <span className="reaction-wrap">
      <button
        type="button"
        className="reaction"
        tabIndex={props.tabIndex}
        aria-pressed={r.mine}
        aria-label={`${r.emoji} ${r.count}${r.mine ? ', including you' : ''}`}
        aria-describedby={id}
        onClick={props.onClick}
      >
        {r.emoji} {r.count}
      </button>
      <span role="tooltip" id={id} className="reaction-tip">
        {r.emoji} by{' '}
        {shown.map((pk, i) => (
          <Who key={pk} pubkey={pk} last={i === shown.length - 1} />
        ))}
        {r.pubkeys.length > shown.length ? ` and ${r.pubkeys.length - shown.length} more` : ''}
        {r.mine ? ' (click to remove yours)' : ''}
      </span>
    </span>
  )
}
