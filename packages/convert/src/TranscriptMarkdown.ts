/**
 * A transcript's conversation as Markdown, for reading a session in a terminal or pasting it
 * into a review: the full history across compactions ({@link conversation}), assistant fragments
 * merged, tool calls with their input, tool results clipped, thinking as a quote, compaction
 * boundaries as rules, Claude Code's command markup as the command typed and its output as text
 * (`CommandMarkup`: no tags, no terminal escapes).
 *
 * Inputs are `unknown`: parsed JSON lines in file order. Every function here is total.
 *
 * @since 0.1.0
 */
import type * as Transcript from "@acx/schema/Transcript"
import * as CommandMarkup from "./CommandMarkup.js"
import { mergeAssistantFragments, type MergedEntry } from "./Fragments.js"
import { get, isObj, stringify } from "./internal/json.js"
import { conversation } from "./Reconstruct.js"
import * as ToolDisplay from "./ToolDisplay.js"

/**
 * Options of {@link transcriptToMarkdown}:
 * - `title`: the heading (default: none);
 * - `includeThinking`: render thinking blocks as quotes (default `true`);
 * - `includeMeta`: render `isMeta` entries such as command output (default `false`);
 * - `maxToolResultChars`: clip tool results to this many characters (default 2 000; 0 = no limit);
 * - `uuids`: end each message's heading with its entry uuid (an assistant message's last
 *   fragment's), the uuid `acx fork --at` takes (default `false`);
 * - `subagent`: the entries are a subagent's own transcript, whose every entry is a sidechain
 *   entry: render them instead of leaving sidechains out (default `false`).
 *
 * @since 0.1.0
 * @category models
 */
export interface MarkdownOptions {
  readonly title?: string | undefined
  readonly includeThinking?: boolean | undefined
  readonly includeMeta?: boolean | undefined
  readonly maxToolResultChars?: number | undefined
  readonly uuids?: boolean | undefined
  readonly subagent?: boolean | undefined
}

const clip = (text: string, max: number): string =>
  max > 0 && text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text

// A fence longer than any backtick run inside, so code blocks cannot be closed early by content.
const fence = (text: string, info = ""): string => {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (match) => match[0].length))
  const ticks = "`".repeat(longest + 1)
  return `${ticks}${info}\n${text}\n${ticks}`
}

const quote = (text: string): string => text.split("\n").map((line) => (line === "" ? ">" : `> ${line}`)).join("\n")

const textOf = (value: unknown): string => {
  if (typeof value === "string") return value
  if (Array.isArray(value)) {
    return value.map((item) => {
      if (typeof item === "string") return item
      const type = get(item, "type")
      if (type === "text") return String(get(item, "text") ?? "")
      return `[${typeof type === "string" ? type : "block"}]`
    }).join("\n")
  }
  return value === undefined || value === null ? "" : stringify(value)
}

interface RenderOptions {
  readonly includeThinking: boolean
  readonly includeMeta: boolean
  readonly maxToolResultChars: number
  readonly uuids: boolean
}

// Inline code that no backtick inside can close early.
const code = (text: string): string => {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (match) => match[0].length))
  const ticks = "`".repeat(longest + 1)
  return longest === 0 ? `${ticks}${text}${ticks}` : `${ticks} ${text} ${ticks}`
}

// A todo's text inline: on one line, Markdown's (and HTML's) punctuation escaped, so a todo can
// neither end the list nor open a tag.
const inline = (text: string): string =>
  text.replace(/\s*[\r\n]+\s*/g, " ").replace(/[\\`*_[\]<>#|~!&]/g, (char) => `\\${char}`)

const CHECKBOX_OF_STATUS: Readonly<Record<ToolDisplay.TodoStatus, string>> = {
  pending: "- [ ] ",
  in_progress: "- [ ] ◐ ",
  completed: "- [x] "
}

// A tool call `ToolDisplay` knows: an edit as a diff, a write as its file's content, a checklist.
const displayMarkdown = (name: string, display: ToolDisplay.ToolDisplay): string => {
  switch (display.kind) {
    case "diff":
      return `**🔧 ${name}** ${code(display.path)}\n${fence(ToolDisplay.unifiedDiff(display), "diff")}`
    case "write": {
      const note = ToolDisplay.writeCutNote(display)
      return `**🔧 ${name}** ${code(display.path)}\n${
        // a file's last line break is no blank line on show
        fence(display.content.replace(/\n$/, ""), display.language ?? "")}${note === undefined ? "" : `\n*${note}*`}`
    }
    case "todos": {
      const items = display.todos.map((todo) =>
        `${CHECKBOX_OF_STATUS[todo.status]}${inline(todo.content)}${
          todo.status === "in_progress" ? " *(in progress)*" : ""
        }`
      )
      if (display.hidden > 0) items.push(`- … ${display.hidden} more todos not shown`)
      const total = display.todos.length + display.hidden
      return `**🔧 ${name}** · ${display.completed} of ${total} done\n${
        items.length === 0 ? "*(no todos)*" : items.join("\n")
      }`
    }
  }
}

const renderBlock = (block: unknown, options: RenderOptions): string | undefined => {
  if (typeof block === "string") return block
  if (!isObj(block)) return undefined
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? block.text : undefined
    case "thinking":
      return options.includeThinking && typeof block.thinking === "string" && block.thinking !== ""
        ? quote(`💭 ${block.thinking}`)
        : undefined
    case "redacted_thinking":
      return options.includeThinking ? "> 💭 (redacted thinking)" : undefined
    case "tool_use":
    case "server_tool_use": {
      const name = typeof block.name === "string" ? block.name : "tool"
      const display = ToolDisplay.displayOf(block.name, block.input)
      return display === undefined
        ? `**🔧 ${name}**\n${fence(stringify(block.input ?? {}, 2), "json")}`
        : displayMarkdown(name, display)
    }
    case "tool_result": {
      const label = block.is_error === true ? "**↳ tool error**" : "**↳ tool result**"
      // a terminal's colours in a command's result: text, never escapes a reader's terminal runs
      return `${label}\n${fence(clip(CommandMarkup.stripAnsi(textOf(block.content)), options.maxToolResultChars))}`
    }
    case "image":
      return "*[image]*"
    case "document":
      return "*[document]*"
    default:
      return `*[${typeof block.type === "string" ? block.type : "block"}]*`
  }
}

const contentBlocks = (message: unknown): ReadonlyArray<unknown> => {
  const content = get(message, "content")
  if (Array.isArray(content)) return content
  return typeof content === "string" ? [content] : []
}

// The uuid `acx fork --at` keeps the whole message with: an assistant message's last fragment's.
const uuidOf = (entry: MergedEntry): string | undefined => {
  const merged = entry.mergedUuids
  const last = Array.isArray(merged) && merged.length > 0 ? merged[merged.length - 1] : entry.uuid
  return typeof last === "string" && last !== "" ? last : undefined
}

const heading = (entry: MergedEntry, options: RenderOptions, label?: string): string => {
  const time = typeof entry.timestamp === "string" ? ` · ${entry.timestamp}` : ""
  const uuid = options.uuids ? uuidOf(entry) : undefined
  const tail = `${time}${uuid === undefined ? "" : ` · uuid ${code(uuid)}`}`
  if (label !== undefined) return `### ${label}${tail}`
  if (entry.type === "assistant") {
    const model = get(entry.message, "model")
    return `### Assistant${typeof model === "string" && model !== "" ? ` (${model})` : ""}${tail}`
  }
  const blocks = contentBlocks(entry.message)
  const onlyResults = blocks.length > 0 && blocks.every((block) => get(block, "type") === "tool_result")
  return `### ${onlyResults ? "Tool result" : "User"}${tail}`
}

// A user entry that is Claude Code's markup (a slash command, its output, the caveat): its one
// text, parsed.
const markupOf = (entry: MergedEntry): CommandMarkup.Markup | undefined => {
  if (entry.type !== "user") return undefined
  const blocks = contentBlocks(entry.message)
  if (blocks.length !== 1) return undefined
  const block = blocks[0]
  const text = typeof block === "string" ? block : get(block, "type") === "text" ? get(block, "text") : undefined
  return typeof text === "string" ? CommandMarkup.parse(text) : undefined
}

// A command as typed, its output fenced; nothing for an empty output or (without meta) a caveat.
const markupSection = (
  entry: MergedEntry,
  markup: CommandMarkup.Markup,
  options: RenderOptions
): string | undefined => {
  switch (markup._tag) {
    case "Command":
      return `${heading(entry, options, "Command")}\n\n${code(markup.command)}`
    case "Output": {
      const text = CommandMarkup.plain(markup)
      return text === "" ? undefined : `${heading(entry, options, "Command output")}\n\n${fence(text)}`
    }
    case "Caveat":
      return options.includeMeta && markup.text !== ""
        ? `${heading(entry, options, "Note")}\n\n${markup.text}`
        : undefined
  }
}

/**
 * The sections of {@link transcriptToMarkdown} (title, one per message, compaction rules), for
 * writing a large session piece by piece: joined with blank lines they are the whole document.
 *
 * @since 0.1.0
 * @category rendering
 */
export const markdownSections = (
  entries: ReadonlyArray<Transcript.TranscriptEntry>,
  options: MarkdownOptions = {}
): Array<string> => {
  const opts: RenderOptions = {
    includeThinking: options.includeThinking ?? true,
    includeMeta: options.includeMeta ?? false,
    maxToolResultChars: options.maxToolResultChars ?? 2_000,
    uuids: options.uuids ?? false
  }
  const items = Array.isArray(entries)
    ? conversation(entries).filter((item) => options.subagent === true || !item.isSidechain)
    : []
  const sections: Array<string> = []
  if (typeof options.title === "string" && options.title !== "") sections.push(`# ${options.title}`)
  for (const entry of mergeAssistantFragments(items.map((item) => item.entry))) {
    if (entry.type === "system" && entry.subtype === "compact_boundary") {
      const metadata = isObj(entry.compactMetadata) ? entry.compactMetadata : {}
      const details = [
        typeof metadata.trigger === "string" ? metadata.trigger : undefined,
        typeof metadata.preTokens === "number" ? `${metadata.preTokens} tokens before` : undefined
      ].filter((part) => part !== undefined)
      sections.push(`---\n\n*Conversation compacted${details.length > 0 ? ` (${details.join(", ")})` : ""}*`)
      continue
    }
    if (entry.type !== "user" && entry.type !== "assistant") continue
    if (entry.isCompactSummary === true) {
      sections.push(
        `<details><summary>Compaction summary</summary>\n\n${textOf(get(entry.message, "content"))}\n\n</details>`
      )
      continue
    }
    if (entry.isMeta === true && !opts.includeMeta) continue
    const markup = markupOf(entry)
    if (markup !== undefined) {
      const section = markupSection(entry, markup, opts)
      if (section !== undefined) sections.push(section)
      continue
    }
    const body = contentBlocks(entry.message).flatMap((block) => {
      const rendered = renderBlock(block, opts)
      return rendered === undefined || rendered.trim() === "" ? [] : [rendered]
    })
    if (body.length === 0) continue
    sections.push(`${heading(entry, opts)}\n\n${body.join("\n\n")}`)
  }
  return sections
}

/**
 * Renders a main transcript's conversation (full history, sidechains left out) as Markdown.
 * Entries that render to nothing (empty text, thinking when excluded) are skipped; a
 * compaction boundary becomes a horizontal rule with its trigger and token count, and the
 * compaction summary is shown as a collapsed `<details>` block.
 *
 * @since 0.1.0
 * @category rendering
 */
export const transcriptToMarkdown = (
  entries: ReadonlyArray<Transcript.TranscriptEntry>,
  options: MarkdownOptions = {}
): string => markdownSections(entries, options).join("\n\n") + "\n"
