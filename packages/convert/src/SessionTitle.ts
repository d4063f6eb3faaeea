/**
 * How a user prompt reads in a session listing. Claude Code stores a slash command as tags
 * (`<command-message>…</command-message><command-name>/clear</command-name><command-args>…`)
 * and a `!` shell command as `<bash-input>…</bash-input>`; a listing shows what the user typed
 * (`/clear`, `/review src`, `!ls`). The output of such commands (`<local-command-stdout>`,
 * `<bash-stdout>`, …) is not something the user typed, so it is not a prompt. Pure and total:
 * every string in, a string (or "not a prompt") out; shared by every reader (CLI, web page).
 *
 * @since 0.1.0
 */

const tag = (text: string, name: string): string | undefined => {
  const open = `<${name}>`
  const start = text.indexOf(open)
  if (start === -1) return undefined
  const end = text.indexOf(`</${name}>`, start + open.length)
  return end === -1 ? undefined : text.slice(start + open.length, end)
}

// Lines that start with these tags are a command's output, written as a user entry.
const OUTPUT_TAGS: ReadonlyArray<string> = [
  "<local-command-stdout>",
  "<local-command-stderr>",
  "<local-command-caveat>",
  "<bash-stdout>",
  "<bash-stderr>"
]

const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim()

/**
 * The command a prompt holds, as typed: `/name args` for a slash command's tags, `!command` for
 * a `<bash-input>`; `undefined` when the text does not start with such tags.
 *
 * @since 0.1.0
 * @category titles
 */
export const commandLine = (text: string): string | undefined => {
  // Only a text that is the tags: a prompt that merely quotes one is left as it is.
  const start = text.trimStart()
  if (!start.startsWith("<command-") && !start.startsWith("<bash-input>")) return undefined
  const name = tag(text, "command-name")
  if (name !== undefined && name.trim() !== "") {
    const command = oneLine(name)
    const args = oneLine(tag(text, "command-args") ?? "")
    const slashed = command.startsWith("/") ? command : `/${command}`
    return args === "" ? slashed : `${slashed} ${args}`
  }
  const bash = tag(text, "bash-input")
  if (bash !== undefined && bash.trim() !== "") return `!${oneLine(bash)}`
  return undefined
}

/**
 * Whether a user entry's text is a command's output (`<local-command-stdout>`, `<bash-stdout>`,
 * …) rather than something the user typed.
 *
 * @since 0.1.0
 * @category titles
 */
export const isCommandOutput = (text: string): boolean => {
  const start = text.trimStart()
  return OUTPUT_TAGS.some((prefix) => start.startsWith(prefix))
}

/**
 * A user prompt as a listing shows it: the command as typed for command tags (see
 * {@link commandLine}), else the text trimmed; `undefined` for an empty text or a command's
 * output.
 *
 * @since 0.1.0
 * @category titles
 */
export const displayPrompt = (text: string): string | undefined => {
  if (isCommandOutput(text)) return undefined
  const command = commandLine(text)
  if (command !== undefined) return command
  const trimmed = text.trim()
  return trimmed === "" ? undefined : trimmed
}
