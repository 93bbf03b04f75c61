import type { Answer, MessageItem } from '../model/types'
import { ConfirmDialog } from './ConfirmDialog'
import { useDisplayName } from './Name'

/** "Delete this message for everyone?" in the app's dialog, with the start of the message. */
export function DeleteMessageDialog(props: {
  message: MessageItem
  onConfirm: () => Promise<Answer>
  onClose: () => void
}) {
  const name = useDisplayName(props.message.pubkey)
  const text = props.message.content
  return (
    <ConfirmDialog
      title="Delete message"
      confirm="Delete for everyone"
      busy="Deleting…"
      onConfirm={props.onConfirm}
      onClose={props.onClose}
    >
      <p>Delete this message for everyone? It cannot be brought back.</p>
      <blockquote className="confirm-quote">
        <strong>{name}</strong>: {text.length > 200 ? `${text.slice(0, 200)}…` : text}
      </blockquote>
    </ConfirmDialog>
  )
}
