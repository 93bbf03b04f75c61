import { useState } from 'react'
import type { GroupHandle } from '../model/api'
import type { Answer, GroupDetail } from '../model/types'
import './community.css'
import { AnswerNotice } from './Dialog'

/**
 * The pinned messages (39005) at the top of the timeline, in the relay's order; a click scrolls to
 * the message, and admins can unpin. Pins not loaded here show as such.
 */
export function PinnedBar(props: { handle: GroupHandle; detail: GroupDetail }) {
  const d = props.detail
  const [answer, setAnswer] = useState<Answer>()
  if (d.pins.length === 0) return answer ? <AnswerNotice answer={answer} /> : null
  const admin = d.me?.admin === true
  return (
    <section className="pinned-bar" aria-label="Pinned messages">
      <h3>Pinned · {d.pins.length}</h3>
      <ul>
        {d.pins.map((id) => {
          const m = props.handle.message(id)
          const text = m ? (m.title ?? m.content) : 'A message not loaded here'
          return (
            <li key={id}>
              <button
                type="button"
                className="pin-text"
                onClick={() =>
                  document.querySelector(`[data-id="${CSS.escape(id)}"]`)?.scrollIntoView({ block: 'center' })
                }
              >
                📌 {text.slice(0, 140)}
              </button>
              {admin ? (
                <button
                  type="button"
                  className="btn small"
                  aria-label={`Unpin ${text.slice(0, 40)}`}
                  onClick={async () => setAnswer(await props.handle.pin(id, false))}
                >
                  Unpin
                </button>
              ) : null}
            </li>
          )
        })}
      </ul>
      {answer && !answer.ok ? <AnswerNotice answer={answer} /> : null}
    </section>
  )
}
