/**
 * The one rule for text acx writes where a terminal may read it (its tables, `acx show`'s
 * Markdown, search snippets, status lines, errors that quote a transcript, the statusline's
 * fields): a control character — an escape that would start a clipboard write (OSC 52), retitle
 * the window or clear the screen, a `\r` or `\b` that would overwrite what was printed, the C1
 * controls — is shown as `?`, never sent. Output to a pipe or a file follows the same rule (a
 * pipe may end in a terminal; `less -R`, `cat` and `tail` read files); JSON output escapes these
 * characters itself and needs no rule.
 *
 * Pure and without Effect: the statusline and the fast paths load it.
 *
 * @since 0.5.0
 */

// C0 controls, DEL and the C1 controls (U+009B is a one-character CSI)
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g
const CONTROLS_BUT_LINES = /\r\n|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

/**
 * `text` for one terminal line: every control character (newlines and tabs too) as `?`.
 *
 * @since 0.5.0
 * @category rendering
 */
export const line = (text: string): string => text.replace(CONTROLS, "?")

/**
 * `text` of many lines for a terminal: newlines (a `\r\n` as `\n`) and tabs kept, any other
 * control character as `?`.
 *
 * @since 0.5.0
 * @category rendering
 */
export const lines = (text: string): string =>
  text.replace(CONTROLS_BUT_LINES, (match) => match === "\r\n" ? "\n" : "?")
