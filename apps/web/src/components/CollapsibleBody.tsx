import { type ReactNode, useId, useLayoutEffect, useRef, useState } from 'react'

/** How many lines a long message shows until "Show more". */
export const COLLAPSED_LINES = 15

/**
 * A message's text, folded to its first {@link COLLAPSED_LINES} lines when it is longer, with
 * "Show more" / "Show less" (a button with `aria-expanded`, so it works from the keyboard and
 * says its state). The height is measured as laid out, so wrapped lines on a phone count too.
 */
export function CollapsibleBody(props: { children: ReactNode; tabIndex?: number }) {
  const ref = useRef<HTMLDivElement>(null)
  const [long, setLong] = useState(false)
  const [open, setOpen] = useState(false)
  const id = useId()
  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    // The text is clamped by CSS from its first layout (so a row never shrinks after the list
    // measured it); what is measured is whether the clamp hides anything.
    const measure = () =>
      setLong((was) => (el.classList.contains('clamp') ? el.scrollHeight > el.clientHeight + 1 : was))
    measure()
    const observer = new ResizeObserver(measure)
    observer.observe(el)
    for (const child of el.children) observer.observe(child)
    return () => observer.disconnect()
  }, [])
  const className = open ? 'body' : long ? 'body clamp folded' : 'body clamp'
  return (
    <>
      <div ref={ref} id={id} className={className}>
        {props.children}
      </div>
      {long ? (
        <button
          type="button"
          className="btn small show-more"
          tabIndex={props.tabIndex}
          aria-expanded={open}
          aria-controls={id}
          onClick={() => setOpen((o) => !o)}
        >
          {open ? 'Show less' : 'Show more'}
        </button>
      ) : null}
    </>
  )
}
