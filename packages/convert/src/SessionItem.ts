/**
 * The items of the session page, as the session fold (`SessionFold`) makes them from transcript
 * lines: prompts, assistant turns with their tool calls and results, compaction points, system
 * notes, unknown entries as raw JSON. Long texts are cut at {@link TEXT_CAP} characters with their
 * full size and a reference ({@link BlockRef}) from which `SessionBlocks.fullBlock` gives the
 * whole text on demand. Plain data: the page's browser code imports these types, the server
 * sends them as JSON.
 *
 * @since 0.1.0
 */
import * as Pricing from "./Pricing.js"
import type * as StatsFold from "./StatsFold.js"
import type { ToolDisplay } from "./ToolDisplay.js"

/**
 * Texts longer than this many characters are cut in the payload (the rest loads on demand).
 *
 * @since 0.1.0
 * @category constants
 */
export const TEXT_CAP = 4_000

/**
 * A text as shown: `text` is at most {@link TEXT_CAP} characters; `size` is the full length
 * (larger when it was cut).
 *
 * @since 0.1.0
 * @category models
 */
export interface Text {
  readonly text: string
  readonly size: number
}

/**
 * Where a cut text or an image is in the transcript: its 1-based line, the index of the block in
 * `message.content` (`-1`: the whole entry as JSON; `0` also names a string `content`), and
 * for a tool result's content the index inside it.
 *
 * @since 0.1.0
 * @category models
 */
export interface BlockRef {
  readonly line: number
  readonly block: number
  readonly sub?: number | undefined
}

/**
 * An image, loaded on demand (`fullBlock` gives its data URL).
 *
 * @since 0.1.0
 * @category models
 */
export interface ImagePart {
  readonly type: "image"
  readonly mediaType: string
  /** Characters of its base64 data. */
  readonly size: number
  readonly ref: BlockRef
}

/**
 * A tool's result as it arrived.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolResult {
  readonly isError: boolean
  readonly text: Text
  readonly images: ReadonlyArray<ImagePart>
  readonly ref: BlockRef
  readonly timestamp: string | undefined
}

/**
 * A tool call, with its result once it arrived, and the subagent that ran it (a Task/Agent
 * call: `agentId` names `subagents/agent-<agentId>.jsonl`).
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolPart {
  readonly type: "tool"
  readonly id: string
  readonly name: string
  /** The input as pretty JSON. */
  readonly input: Text
  /** What the input means, for the tools `ToolDisplay` knows (an edit's diff, a checklist…). */
  readonly display?: ToolDisplay | undefined
  readonly ref: BlockRef
  readonly result?: ToolResult | undefined
  readonly agentId?: string | undefined
}

/**
 * One block of a prompt or an assistant turn. A prompt's Claude Code markup (`CommandMarkup`)
 * arrives read: `command`, a slash or `!` command as typed; `output`, a local command's output
 * as plain text (no tags, no terminal escapes; `isError` when it wrote only to stderr).
 *
 * @since 0.1.0
 * @category models
 */
export type Part =
  | { readonly type: "text"; readonly text: Text; readonly ref: BlockRef }
  | { readonly type: "command"; readonly command: string; readonly ref: BlockRef }
  | { readonly type: "output"; readonly text: Text; readonly isError: boolean; readonly ref: BlockRef }
  | { readonly type: "thinking"; readonly text: Text; readonly ref: BlockRef }
  | ImagePart
  | ToolPart
  | { readonly type: "other"; readonly blockType: string; readonly raw: Text; readonly ref: BlockRef }

/**
 * The tokens and cost of one API message (the last fragment's usage); `costUSD` is `null` when
 * the model has no price.
 *
 * @since 0.1.0
 * @category models
 */
export interface TurnUsage {
  readonly input: number
  readonly output: number
  readonly cacheRead: number
  readonly cacheWrite: number
  readonly costUSD: number | null
}

/**
 * What every item has: its key (the first entry's `uuid`, else `line:<n>`), the first line it
 * came from, every entry uuid it shows, its time, and `within`: the tool call (its `tool_use`
 * id) an inline sidechain entry belongs to.
 *
 * @since 0.1.0
 * @category models
 */
export interface ItemBase {
  readonly key: string
  readonly line: number
  readonly uuids: ReadonlyArray<string>
  readonly timestamp: string | undefined
  readonly sidechain: boolean
  readonly within?: string | undefined
}

/**
 * An item of the page:
 * - `prompt`: what the user wrote (text and images);
 * - `assistant`: one API message: text (Markdown source), thinking, tool calls; its model and usage;
 * - `results`: tool results whose call is not in the transcript;
 * - `meta`: an entry Claude Code marks as meta (command output, caveats, attachments);
 * - `compaction`: a compaction point, with the summary the conversation continued from;
 * - `system`: a system entry (API error, local command, turn duration, …);
 * - `unknown`: an entry of a type acx does not know, shown as raw JSON on demand;
 * - `too-large`: a line over the size cap, not read (downloadable);
 * - `malformed`: a line that is not a JSON object.
 *
 * @since 0.1.0
 * @category models
 */
export type Item =
  | ItemBase & { readonly kind: "prompt"; readonly parts: ReadonlyArray<Part> }
  | ItemBase & {
    readonly kind: "assistant"
    readonly model: string | undefined
    readonly messageId: string | undefined
    readonly parts: ReadonlyArray<Part>
    readonly usage: TurnUsage | undefined
  }
  | ItemBase & { readonly kind: "results"; readonly parts: ReadonlyArray<Part> }
  | ItemBase & { readonly kind: "meta"; readonly label: string; readonly text: Text; readonly ref: BlockRef }
  | ItemBase & {
    readonly kind: "compaction"
    readonly trigger: string | undefined
    readonly preTokens: number | undefined
    readonly summary: (Text & { readonly ref: BlockRef }) | undefined
  }
  | ItemBase & { readonly kind: "system"; readonly subtype: string; readonly text: Text; readonly ref: BlockRef }
  | ItemBase & { readonly kind: "unknown"; readonly type: string; readonly raw: Text; readonly ref: BlockRef }
  | ItemBase & { readonly kind: "too-large"; readonly bytes: number }
  | ItemBase & { readonly kind: "malformed"; readonly description: string }

/**
 * Whether an item is a turn of the conversation: a prompt, an assistant message, tool results
 * whose call is elsewhere, or a compaction. Meta entries (attachments, caveats), system notes and
 * unreadable lines are not: the page's count and `get_session_turns` count turns by this.
 *
 * @since 0.5.0
 * @category models
 */
export const isTurn = (
  item: Item
): item is Extract<Item, { readonly kind: "prompt" | "assistant" | "results" | "compaction" }> =>
  item.kind === "prompt" || item.kind === "assistant" || item.kind === "results" || item.kind === "compaction"

/**
 * Whether an item is one of the attachments Claude Code records beside a prompt (`environment`,
 * `skill_listing`, `deferred_tools_delta`, …): a meta item labelled `attachment[: TYPE]`, which
 * the page folds into one quiet line.
 *
 * @since 0.5.0
 * @category models
 */
export const isAttachment = (item: Item): item is Extract<Item, { readonly kind: "meta" }> =>
  item.kind === "meta" && (item.label === ATTACHMENT || item.label.startsWith(`${ATTACHMENT}: `))

/**
 * The label of an attachment's item, before its type (`attachment: environment`).
 *
 * @since 0.5.0
 * @category models
 */
export const ATTACHMENT = "attachment"

/**
 * One line of the transcript as the fold takes it: a parsed JSON value, a line over the size
 * cap (its byte count), or a line that is not JSON.
 *
 * @since 0.1.0
 * @category models
 */
export type Input =
  | { readonly line: number; readonly entry: unknown }
  | { readonly line: number; readonly tooLarge: number }
  | { readonly line: number; readonly malformed: string }

/**
 * A text cut to {@link TEXT_CAP} characters (without splitting a surrogate pair).
 *
 * @since 0.1.0
 * @category texts
 */
export const capped = (text: string): Text => {
  if (text.length <= TEXT_CAP) return { text, size: text.length }
  const code = text.charCodeAt(TEXT_CAP - 1)
  const end = code >= 0xd800 && code <= 0xdbff ? TEXT_CAP - 1 : TEXT_CAP
  return { text: text.slice(0, end), size: text.length }
}

/**
 * A turn's tokens and cost from what `acx stats` counts for its API message
 * (`StatsFold.messageFigures`): `undefined` when the message counts nothing (Claude Code's
 * `<synthetic>` messages, no usage yet); `costUSD` is `null` when the model has no price.
 *
 * @since 0.1.0
 * @category usage
 */
export const turnUsage = (figures: StatsFold.MessageFigures, pricing: Pricing.PricingTable): TurnUsage | undefined => {
  const { cell, model } = figures
  if (cell === undefined || model === undefined) return undefined
  return {
    input: cell.input,
    output: cell.output,
    cacheRead: cell.cacheRead,
    cacheWrite: cell.cacheWrite5m + cell.cacheWrite1h,
    // unpriced: nothing was charged and the model has no price (a later fragment without a model
    // keeps the figures, and the dollars, its message was priced at)
    costUSD: cell.costUSD === 0 && Pricing.ratesFor(pricing, model) === undefined ? null : cell.costUSD
  }
}
