import { useState } from 'react'
import { hueOf, initials } from '../lib/format'
import { safeHttpUrl } from '../lib/safe-url'

/**
 * A round picture when an http(s) URL is given and loads, otherwise initials on a color
 * derived from the key. Decorative: the name beside it carries the meaning.
 */
export function Avatar(props: {
  name: string
  seed: string
  picture?: string
  size?: number
  square?: boolean
}) {
  const size = props.size ?? 36
  const src = safeHttpUrl(props.picture)
  const [failed, setFailed] = useState(false)
  const className = props.square ? 'avatar square' : 'avatar'
  if (src && !failed) {
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
