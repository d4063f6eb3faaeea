/**
 * Claude Code's markup for what the user ran locally, read as what it means. Claude Code writes a
 * slash command as tags (`<command-message>…</command-message><command-name>/compact</command-name>
 * <command-args>…</command-args>`), a `!` shell command as `<bash-input>…</bash-input>`, their
 * output as `<local-command-stdout>`/`<local-command-stderr>` or `<bash-stdout>`/`<bash-stderr>`
 * (with the terminal's ANSI escapes in it), and the note before them as
 * `<local-command-caveat>`. The session page and `acx show` show the command as typed and the
 * output as text, never the tags or raw escapes: both read it here.
 *
 * Pure and total: any string in, a {@link Markup} (or `undefined`: not markup) out.
 *
 * @since 0.1.0
 */
import { commandLine } from "./SessionTitle.js"

/**
 * What a text of Claude Code's markup stands for:
 * - `Command`: a slash or `!` command as typed (`/compact`, `/review src`, `!ls`);
 * - `Output`: a local command's output, ANSI escapes stripped (`stderr` empty when none);
 * - `Caveat`: Claude Code's note that the messages around are local commands.
 *
 * @since 0.1.0
 * @category models
 */
export type Markup =
  | { readonly _tag: "Command"; readonly command: string }
  | { readonly _tag: "Output"; readonly stdout: string; readonly stderr: string }
  | { readonly _tag: "Caveat"; readonly text: string }

// ESC-introduced sequences: CSI (`ESC [ … final`), OSC (`ESC ] … BEL` or `ESC ] … ESC \`),
// DCS/SOS/PM/APC strings, and two-character escapes; the C1 CSI (U+009B) form too.
const ANSI = new RegExp(
  [
    "\\u001b\\[[0-?]*[ -/]*[@-~]",
    "\\u009b[0-?]*[ -/]*[@-~]",
    "\\u001b\\][^\\u0007\\u001b]*(?:\\u0007|\\u001b\\\\)?",
    "\\u001b[PX^_][^\\u001b]*(?:\\u001b\\\\)?",
    "\\u001b[ -/]*[0-~]?"
  ].join("|"),
  "g"
)

/**
 * The text without terminal escape sequences (colours, styles, cursor moves, titles); a lone or
 * cut escape is dropped too, so the result never holds an ESC (U+001B) or C1 CSI (U+009B).
 *
 * @since 0.1.0
 * @category text
 */
export const stripAnsi = (text: string): string =>
  text.includes("\u001b") || text.includes("\u009b") ? text.replace(ANSI, "").replace(/[\u001b\u009b]/g, "") : text

// The inside of `<name>…</name>` at or after `from`: to the closing tag, or to the end when it
// was cut off.
const inner = (text: string, name: string): string | undefined => {
  const open = `<${name}>`
  const start = text.indexOf(open)
  if (start === -1) return undefined
  const end = text.indexOf(`</${name}>`, start + open.length)
  return text.slice(start + open.length, end === -1 ? text.length : end)
}

const OUTPUT_TAGS = ["local-command-stdout", "local-command-stderr", "bash-stdout", "bash-stderr"] as const

const trimOutput = (text: string): string => stripAnsi(text).replace(/^\n+|\s+$/g, "")

/**
 * What `text` stands for, when it is Claude Code's markup (it starts with one of the tags; a
 * prompt that merely quotes a tag further in is not markup); `undefined` otherwise.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (text: string): Markup | undefined => {
  if (typeof text !== "string") return undefined
  const start = text.trimStart()
  if (!start.startsWith("<")) return undefined
  if (start.startsWith("<local-command-caveat>")) {
    return { _tag: "Caveat", text: stripAnsi(inner(start, "local-command-caveat") ?? "").trim() }
  }
  if (OUTPUT_TAGS.some((name) => start.startsWith(`<${name}>`))) {
    const part = (names: ReadonlyArray<string>) =>
      names.map((name) => inner(start, name)).filter((found) => found !== undefined).map(trimOutput).join("\n")
    return {
      _tag: "Output",
      stdout: part(["local-command-stdout", "bash-stdout"]),
      stderr: part(["local-command-stderr", "bash-stderr"])
    }
  }
  const command = commandLine(start)
  return command === undefined ? undefined : { _tag: "Command", command: stripAnsi(command) }
}

/**
 * The markup as one plain text: the command as typed, the output (stdout, then stderr), the
 * caveat's words.
 *
 * @since 0.1.0
 * @category rendering
 */
export const plain = (markup: Markup): string => {
  switch (markup._tag) {
    case "Command":
      return markup.command
    case "Output":
      return [markup.stdout, markup.stderr].filter((text) => text !== "").join("\n")
    case "Caveat":
      return markup.text
  }
}

/**
 * `text` as a reader should see it: {@link plain} of its markup, or the text itself (ANSI escapes
 * stripped) when it is not markup.
 *
 * @since 0.1.0
 * @category rendering
 */
export const readable = (text: string): string => {
  const markup = parse(text)
  return markup === undefined ? stripAnsi(text) : plain(markup)
}
