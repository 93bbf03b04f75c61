import { Fragment } from 'react'
import { tokenize } from '../lib/safe-url'

/**
 * Message content as React text nodes. http(s) URLs become links (and image URLs a small
 * preview); nothing is ever interpreted as HTML.
 */
export function RichText(props: { text: string; images?: boolean; linkTabIndex?: number }) {
  const tokens = tokenize(props.text)
  return (
    <>
      {tokens.map((t) =>
        t.type === 'text' ? (
          <Fragment key={t.start}>{t.text}</Fragment>
        ) : (
          <Fragment key={t.start}>
            <a
              href={t.href}
              target="_blank"
              rel="noopener noreferrer nofollow ugc"
              tabIndex={props.linkTabIndex}
            >
              {t.text}
            </a>
            {/* Previews only over https: the page's CSP allows no other remote images. */}
            {t.image && props.images !== false && t.href.startsWith('https:') ? (
              <img className="inline" src={t.href} alt="" loading="lazy" referrerPolicy="no-referrer" />
            ) : null}
          </Fragment>
        ),
      )}
    </>
  )
}
