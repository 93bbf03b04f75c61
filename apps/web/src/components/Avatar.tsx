import { useState } from 'react'
import { hueOf, initials } from '../lib/format'
import { hostOf } from '../lib/media-hosts'
import { safeHttpUrl } from '../lib/safe-url'
import { useAllowHost, useMayLoad } from './media-consent'
import './safety.css'

/**
 * A round picture when an http(s) URL is given, may load (`media-consent.ts`: the user's own
 * servers, an allowed host, or "load from any host"; `trusted` for the user's own picture) and
 * loads; otherwise initials on a color derived from the key. A picture from a host the user has
 * not allowed is never requested: the load would tell that host who is looking. Decorative: the
 * name beside it carries the meaning.
 */
export function Avatar(props: {
  name: string
  seed: string
  picture?: string
  size?: number
  square?: boolean
  /** The user's own picture (or one they are editing): it loads from wherever it is. */
  trusted?: boolean
}) {
  const size = props.size ?? 36
  const src = safeHttpUrl(props.picture)
  const mayLoad = useMayLoad()
  const [failed, setFailed] = useState(false)
  const className = props.square ? 'avatar square' : 'avatar'
  if (src && !failed && (props.trusted || mayLoad(src))) {
    return (
      <img
        className={className}
        src={src}
        alt=""
        width={size}
        height={size}
        loading="lazy"
        referrerPolicy="no-referrer"
        onError={() => setFailed(true)}
      />
    )
  }
  return (
    <span
      className={className}
      aria-hidden="true"
      data-gated={src && !failed ? 'true' : undefined}
      style={{
        width: size,
        height: size,
        fontSize: Math.round(size * 0.38),
        background: `hsl(${hueOf(props.seed)} 50% 30%)`,
      }}
    >
      {initials(props.name)}
    </span>
  )
}

/**
 * Beside a picture that waits for consent (a profile card, a group preview): the button that
 * allows that picture's host from now on (kept in Settings, where it can be taken back). Nothing
 * when there is no picture or it may load already.
 * @example <PictureConsent picture={profile?.picture} trusted={mine} />
 */
export function PictureConsent(props: { picture?: string; trusted?: boolean }) {
  const src = safeHttpUrl(props.picture)
  const mayLoad = useMayLoad()
  const allow = useAllowHost()
  if (!src || props.trusted || mayLoad(src)) return null
  const host = hostOf(src)
  return (
    <p className="picture-consent">
      <button type="button" className="btn small" onClick={() => allow(src)}>
        Show pictures from <bdi className="host">{host}</bdi>
      </button>
      <span className="hint"> Loading a picture tells its host that you are looking.</span>
    </p>
  )
}
