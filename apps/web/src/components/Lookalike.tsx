import { formatFull } from '../lib/format'
import type { GroupOrigin, TwinVerdict } from '../lib/lookalike'
import { hostOf } from '../lib/media-hosts'
import { cleanName } from '../lib/names'

/**
 * What tells a group apart from its look-alikes: its id, when it was created (as the relay vouches,
 * or as its creator claims), its members, and a chip on the one the facts point to.
 * @example {g.twin ? <TwinFacts id={g.id} origin={g.origin} twin={g.twin} /> : null}
 */
export function TwinFacts(props: {
  id: string
  origin?: GroupOrigin
  twin: TwinVerdict
  /** False where the member count shows already (the join preview). */
  members?: boolean
}) {
  const o = props.origin
  const facts = [
    `id ${cleanName(props.id)}`,
    o?.createdAt !== undefined
      ? `created ${formatFull(o.createdAt)}`
      : o?.claimedAt !== undefined
        ? `created ${formatFull(o.claimedAt)} (its creator's clock)`
        : undefined,
    o?.members !== undefined && props.members !== false
      ? `${o.members} ${o.members === 1 ? 'member' : 'members'}`
      : undefined,
  ].filter(Boolean)
  const chip = props.twin.original
    ? o?.byOperator
      ? 'made by this relay'
      : o?.createdAt !== undefined
        ? 'the oldest'
        : 'the largest'
    : undefined
  return (
    <p className="twin-facts" data-testid="twin-facts">
      {chip ? <span className="chip twin-original">{chip}</span> : null}
      <span>{facts.join(' · ')}</span>
    </p>
  )
}

const WARNINGS: Record<NonNullable<TwinVerdict['warning']>, string> = {
  operator: 'was made by this relay itself',
  older: 'is older',
  members: 'has more members',
}

/**
 * The warning on a group whose look-alike is the original, or the note when none can be told.
 * @example {g.twin ? <TwinWarning name={g.name} twin={g.twin} /> : null}
 */
export function TwinWarning(props: { name: string; twin: TwinVerdict }) {
  const t = props.twin
  if (t.warning) {
    return (
      <p className="notice warn twin-warning" role="note" data-testid="twin-warning">
        Not the only “<bdi>{props.name}</bdi>” here: another group with this name {WARNINGS[t.warning]}. Check
        the id before you join.
      </p>
    )
  }
  if (t.undecided) {
    return (
      <p className="hint twin-warning" role="note" data-testid="twin-warning">
        {t.size} groups here have this name and nothing shows which is the original: check the id.
      </p>
    )
  }
  return null
}

/**
 * A small mark for lists (switcher, search, sidebar, header): the group's id (and its relay's host
 * when a look-alike lives on another relay), with ⚠ on a look-alike of the original.
 * @example {twin ? <TwinMark id={g.id} twin={twin} relay={g.relay} /> : null}
 */
export function TwinMark(props: { id: string; twin: TwinVerdict; relay?: string }) {
  const t = props.twin
  const reason = t.warning ? `Another group with this name ${WARNINGS[t.warning]}` : undefined
  const where = t.elsewhere && props.relay ? `${hostOf(props.relay)} ` : ''
  return (
    <span className={reason ? 'twin-mark warn' : 'twin-mark'} data-testid="twin-mark" title={reason}>
      {reason ? <span aria-hidden="true">⚠ </span> : null}
      <span className="visually-hidden">{reason ? `${reason}; id ` : 'id '}</span>
      {where}
      {cleanName(props.id)}
    </span>
  )
}
