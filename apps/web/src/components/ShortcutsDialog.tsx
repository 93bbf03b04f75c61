import { Dialog } from './Dialog'

/** Every keyboard shortcut, in one place; `?` opens it from anywhere outside a text field. */
export const SHORTCUTS: ReadonlyArray<readonly [keys: string, what: string]> = [
  ['Tab', 'Header, message list, message box: the list is a single stop'],
  ['↑ / ↓', 'Previous or next message (Home and End: first and last)'],
  ['Enter', "Open the focused message's actions (← → between them)"],
  ['Escape', 'Leave the actions, close a panel, dialog or the group list'],
  ['Alt + ↑ / ↓', 'Previous or next group'],
  ['Alt + Shift + ↑ / ↓', 'Previous or next group with unread messages'],
  ['Ctrl (⌘) + K', 'Switch to a group by name'],
  ['/ or Ctrl (⌘) + Shift + F', 'Search messages'],
  ['Enter / Shift + Enter', 'Send the message, or start a new line'],
  ['?', 'This list'],
]

export function ShortcutsDialog(props: { onClose: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={props.onClose}>
      <dl className="shortcuts">
        {SHORTCUTS.map(([keys, what]) => (
          <div key={keys}>
            <dt>
              {keys.split(' ').map((k, i) =>
                k === '+' || k === '/' ? (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list of key names
                  <span key={i}> {k} </span>
                ) : (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list of key names
                  <kbd key={i}>{k}</kbd>
                ),
              )}
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  )
}
