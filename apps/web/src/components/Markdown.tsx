import { parseContent } from '@roost/nip29'
import type { Nodes, PhrasingContent, RootContent } from 'mdast'
import { Fragment, type ReactNode, useMemo, useState } from 'react'
import { useApp } from '../hooks'
import { MARKDOWN_BOUNDS, PREVIEW_BOUNDS, parseMarkdown, piecesOf, previewOf } from '../lib/markdown'
import { safeHttpUrl } from '../lib/safe-url'
import './markdown.css'
import { useDisplayName } from './Name'
import { RichText } from './RichText'

/** A NIP-27 mention shown as the person's name; highlighted when it names the reader. */
export function Mention(props: { pubkey: string; me: boolean }) {
  const name = useDisplayName(props.pubkey)
  return (
    <span
      className={props.me ? 'mention mention-me' : 'mention'}
      data-pubkey={props.pubkey}
      title={props.pubkey}
    >
      @{name}
    </span>
  )
}

interface Ctx {
  me: string
  linkTabIndex?: number
  images?: boolean
}

/** Plain text of a message: `nostr:npub…` mentions as names, URLs as safe links (RichText). */
function TextRun(props: { text: string; ctx: Ctx }) {
  const { text, ctx } = props
  if (!text.includes('1')) return <RichText text={text} linkTabIndex={ctx.linkTabIndex} images={ctx.images} />
  const out: ReactNode[] = []
  let pending = ''
  let at = 0
  const flush = () => {
    if (pending)
      out.push(<RichText key={`t${at}`} text={pending} linkTabIndex={ctx.linkTabIndex} images={ctx.images} />)
    pending = ''
  }
  for (const s of parseContent(text)) {
    if (s.type === 'mention') {
      flush()
      out.push(<Mention key={`m${at}`} pubkey={s.pubkey} me={s.pubkey === ctx.me} />)
    } else pending += s.raw
    at += s.raw.length
  }
  flush()
  return <>{out}</>
}

/**
 * Text of many lines in pieces (`piecesOf`): after the first, each is a block the browser lays
 * out only while it is on screen (`content-visibility`), so a message of 30,000 lines does not
 * block the page. Short text is rendered as it is.
 */
function Pieces(props: { text: string; render: (piece: string) => ReactNode; block?: boolean }) {
  const pieces = useMemo(() => piecesOf(props.text), [props.text])
  if (pieces.length === 1) return <>{props.render(props.text)}</>
  return (
    <>
      {pieces.map((piece, i) =>
        i === 0 && !props.block ? (
          <Fragment key="first">{props.render(piece)}</Fragment>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: the pieces of a text are fixed by it
          <span key={i} className="md-piece">
            {props.render(piece)}
          </span>
        ),
      )}
    </>
  )
}

const asIs = (piece: string) => piece

function children(nodes: readonly (RootContent | PhrasingContent)[], ctx: Ctx, depth: number): ReactNode[] {
  return nodes.map((n, i) => (
    // biome-ignore lint/suspicious/noArrayIndexKey: a message's tree is fixed by its text; siblings never move
    <Node key={i} node={n} ctx={ctx} depth={depth} />
  ))
}

/** The text of a subtree, for link labels whose URL is not safe to follow. Iterative. */
function plain(node: Nodes): string {
  let out = ''
  const stack: Nodes[] = [node]
  while (stack.length > 0) {
    const n = stack.pop() as Nodes
    if ('value' in n && typeof n.value === 'string') out += n.value
    else if ('children' in n)
      for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i] as Nodes)
  }
  return out
}

/**
 * One node at `depth` (the message's blocks are at 1). The parsed tree is already no deeper than
 * `MARKDOWN_BOUNDS.depth`; an element that would nest deeper anyway shows as its text, and the
 * recursion stops there.
 */
function Node(props: { node: RootContent | PhrasingContent; ctx: Ctx; depth: number }): ReactNode {
  const { node, ctx } = props
  const depth = props.depth + 1
  if (depth >= MARKDOWN_BOUNDS.depth && 'children' in node) return <>{plain(node)}</>
  switch (node.type) {
    case 'paragraph':
      return <p className="md-p">{children(node.children, ctx, depth)}</p>
    case 'text':
      return (
        <Pieces
          text={node.value}
          render={node.data?.literal ? asIs : (t) => <TextRun text={t} ctx={ctx} />}
        />
      )
    case 'strong':
      return <strong>{children(node.children, ctx, depth)}</strong>
    case 'emphasis':
      return <em>{children(node.children, ctx, depth)}</em>
    case 'delete':
      return <del>{children(node.children, ctx, depth)}</del>
    case 'inlineCode':
      return <code className="md-code">{node.value}</code>
    case 'code':
      return (
        <pre className="md-pre" data-lang={node.lang ?? undefined}>
          <code>
            <Pieces text={node.value} render={asIs} block />
          </code>
        </pre>
      )
    case 'blockquote':
      return <blockquote className="md-quote">{children(node.children, ctx, depth)}</blockquote>
    case 'break':
      return <br />
    case 'link': {
      const href = safeHttpUrl(node.url)
      if (!href) return <>{plain(node)}</>
      return (
        <a
          href={href}
          title={href}
          target="_blank"
          rel="noopener noreferrer nofollow ugc"
          tabIndex={ctx.linkTabIndex}
        >
          {plain(node)}
        </a>
      )
    }
    default:
      // Constructs switched off at the tokenizer never get here; anything else shows as its text.
      return <>{plain(node as Nodes)}</>
  }
}

/**
 * Message content with the Markdown subset (`lib/markdown.ts`) rendered as React elements: no
 * HTML is ever interpreted, links pass the safe-URL rules, mentions show as names. The work and
 * the nesting are bounded whatever the text (`lib/markdown-bound.ts`), and a long message shows
 * its start until the reader asks for the whole.
 */
export function Markdown(props: { text: string; linkTabIndex?: number; images?: boolean }) {
  const me = useApp().snapshot().session.pubkey
  const [whole, setWhole] = useState(false)
  const preview = useMemo(() => (whole ? undefined : previewOf(props.text)), [whole, props.text])
  const tree = useMemo(
    () => (preview === undefined ? parseMarkdown(props.text) : parseMarkdown(preview, PREVIEW_BOUNDS)),
    [preview, props.text],
  )
  const ctx: Ctx = { me, linkTabIndex: props.linkTabIndex, images: props.images }
  return (
    <>
      {children(tree.children, ctx, 0)}
      {preview === undefined ? null : (
        <button
          type="button"
          className="btn small md-more"
          tabIndex={props.linkTabIndex}
          onClick={() => setWhole(true)}
        >
          Show all {props.text.length.toLocaleString()} characters
        </button>
      )}
    </>
  )
}
