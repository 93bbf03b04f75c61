import { parseContent } from '@roost/nip29'
import type { Nodes, PhrasingContent, RootContent } from 'mdast'
import { type ReactNode, useMemo } from 'react'
import { useApp } from '../hooks'
import { parseMarkdown } from '../lib/markdown'
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

function children(nodes: readonly (RootContent | PhrasingContent)[], ctx: Ctx): ReactNode[] {
  // Siblings start at distinct offsets of the source: a stable key for each.
  return nodes.map((n) => <Node key={n.position?.start.offset ?? plain(n as Nodes)} node={n} ctx={ctx} />)
}

/** The text of a subtree, for link labels whose URL is not safe to follow. */
function plain(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string') return node.value
  if ('children' in node) return node.children.map((c) => plain(c as Nodes)).join('')
  return ''
}

function Node(props: { node: RootContent | PhrasingContent; ctx: Ctx }): ReactNode {
  const { node, ctx } = props
  switch (node.type) {
    case 'paragraph':
      return <p className="md-p">{children(node.children, ctx)}</p>
    case 'text':
      return <TextRun text={node.value} ctx={ctx} />
    case 'strong':
      return <strong>{children(node.children, ctx)}</strong>
    case 'emphasis':
      return <em>{children(node.children, ctx)}</em>
    case 'delete':
      return <del>{children(node.children, ctx)}</del>
    case 'inlineCode':
      return <code className="md-code">{node.value}</code>
    case 'code':
      return (
        <pre className="md-pre" data-lang={node.lang ?? undefined}>
          <code>{node.value}</code>
        </pre>
      )
    case 'blockquote':
      return <blockquote className="md-quote">{children(node.children, ctx)}</blockquote>
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
 * HTML is ever interpreted, links pass the safe-URL rules, mentions show as names.
 */
export function Markdown(props: { text: string; linkTabIndex?: number; images?: boolean }) {
  const me = useApp().snapshot().session.pubkey
  const tree = useMemo(() => parseMarkdown(props.text), [props.text])
  const ctx: Ctx = { me, linkTabIndex: props.linkTabIndex, images: props.images }
  if (!tree) return <TextRun text={props.text} ctx={ctx} />
  return <>{children(tree.children, ctx)}</>
}
