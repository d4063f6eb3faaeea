/**
 * A session's turns as plain text, for a model reading a past conversation (the MCP tool
 * `get_session_turns`): the session page's items (`SessionFold`, its texts masked before they
 * are cut) reduced to the conversation — the user's prompts, the assistant's text, thinking and
 * tool calls with their inputs and results, tool results whose call is elsewhere, compaction
 * summaries — each one text with every field cut at {@link FIELD_CAP} characters and the cut
 * said, and a window of them chosen around an entry uuid (a search hit's) or from a turn number.
 *
 * Pure and total: items in, text out.
 *
 * @since 0.3.0
 */
import * as Either from "effect/Either"
import { plural } from "./Plural.js"
import * as SessionItem from "./SessionItem.js"

/**
 * The most characters one field (a prompt's text, a tool's input, a result) shows.
 *
 * @since 0.3.0
 * @category constants
 */
export const FIELD_CAP = 2_000

/**
 * Turns shown when no count is asked for, and the most one call shows.
 *
 * @since 0.3.0
 * @category constants
 */
export const DEFAULT_TURNS = 10

/**
 * @since 0.3.0
 * @category constants
 */
export const MAX_TURNS = 50

/**
 * One turn: its number (1-based, over the session's turns), the entry uuids it shows (a search
 * hit's uuid is one of them), its time, what it is, and its text.
 *
 * @since 0.3.0
 * @category models
 */
export interface Turn {
  readonly turn: number
  readonly uuids: ReadonlyArray<string>
  readonly time?: string | undefined
  readonly kind: "prompt" | "assistant" | "results" | "compaction"
  readonly text: string
}

type Conversation = Extract<SessionItem.Item, { readonly kind: Turn["kind"] }>

const isConversation: (item: SessionItem.Item) => item is Conversation = SessionItem.isTurn

/**
 * A field as shown: at most {@link FIELD_CAP} characters (a surrogate pair never split), and
 * when it was cut, how much there was.
 *
 * @since 0.3.0
 * @category rendering
 */
export const field = (text: SessionItem.Text): string => {
  const whole = Math.max(text.size, text.text.length)
  if (text.text.length <= FIELD_CAP && whole === text.text.length) return text.text
  const code = text.text.charCodeAt(FIELD_CAP - 1)
  const end = Math.min(text.text.length, code >= 0xd800 && code <= 0xdbff ? FIELD_CAP - 1 : FIELD_CAP)
  return `${text.text.slice(0, end)}\n[… cut: ${whole} characters, the first ${end} shown]`
}

const resultText = (result: SessionItem.ToolResult | undefined): string =>
  result === undefined
    ? "(no result)"
    : `${result.isError ? "Error result" : "Result"}:\n${field(result.text)}${
      result.images.length === 0 ? "" : `\n[${plural(result.images.length, "image")}]`
    }`

const partText = (part: SessionItem.Part): string => {
  switch (part.type) {
    case "text":
      return field(part.text)
    case "command":
      return `Command: ${part.command}`
    case "output":
      return `${part.isError ? "Command error output" : "Command output"}:\n${field(part.text)}`
    case "thinking":
      return `Thinking:\n${field(part.text)}`
    case "image":
      return `[image, ${part.mediaType}]`
    case "tool":
      return `Tool call ${part.name} (${part.id})${part.agentId === undefined ? "" : `, subagent ${part.agentId}`}:\n${
        field(part.input)
      }\n${resultText(part.result)}`
    case "other":
      return `[${part.blockType} block]`
  }
}

const HEADINGS: Record<Turn["kind"], string> = {
  prompt: "User",
  assistant: "Assistant",
  results: "Tool results",
  compaction: "Compaction"
}

const itemText = (item: Conversation): string => {
  const heading = item.kind === "assistant" && item.model !== undefined
    ? `Assistant (${item.model})`
    : HEADINGS[item.kind]
  if (item.kind === "compaction") {
    return `${heading}${
      item.trigger === undefined ? "" : ` (${item.trigger})`
    }: the conversation continued from this summary:\n${
      item.summary === undefined ? "(no summary)" : field(item.summary)
    }`
  }
  return [`${heading}:`, ...item.parts.map(partText)].join("\n")
}

/**
 * The conversation's turns, numbered from 1: prompts, assistant messages, orphan tool results
 * and compactions (meta entries, system notes and unreadable lines are left out).
 *
 * @since 0.3.0
 * @category turns
 */
export const turnsOf = (items: ReadonlyArray<SessionItem.Item>): Array<Turn> =>
  items.filter(isConversation).map((item, i) => ({
    turn: i + 1,
    uuids: item.uuids,
    ...(item.timestamp === undefined ? {} : { time: item.timestamp }),
    kind: item.kind,
    text: itemText(item)
  }))

/**
 * Which turns to show: around an entry uuid (the turn holding it in the middle), else from a
 * turn number (1-based), else from the first; at most `max` ({@link DEFAULT_TURNS}, at most
 * {@link MAX_TURNS}).
 *
 * @since 0.3.0
 * @category models
 */
export interface Window {
  readonly around?: string | undefined
  readonly fromTurn?: number | undefined
  readonly max?: number | undefined
}

const countOf = (max: number | undefined): number =>
  max === undefined || !Number.isFinite(max) ? DEFAULT_TURNS : Math.min(MAX_TURNS, Math.max(1, Math.floor(max)))

/**
 * The turns of a window, or why there are none: an `around` uuid no turn holds (`NotFound`).
 * A `fromTurn` past the end gives no turns.
 *
 * @since 0.3.0
 * @category turns
 */
export const window = (
  turns: ReadonlyArray<Turn>,
  options: Window
): Either.Either<ReadonlyArray<Turn>, { readonly _tag: "NotFound"; readonly uuid: string }> => {
  const count = countOf(options.max)
  if (options.around !== undefined) {
    const at = turns.findIndex((turn) => turn.uuids.includes(options.around!))
    if (at < 0) return Either.left({ _tag: "NotFound", uuid: options.around })
    const from = Math.max(0, Math.min(at - Math.floor((count - 1) / 2), turns.length - count))
    return Either.right(turns.slice(from, from + count))
  }
  const first = options.fromTurn === undefined || !Number.isFinite(options.fromTurn)
    ? 0
    : Math.max(0, Math.floor(options.fromTurn) - 1)
  return Either.right(turns.slice(first, first + count))
}
