/**
 * What the statistics fold reads of one transcript entry, and nothing else (`StatsFold`
 * re-exports these). The fold of an entry is a function of its facts alone, so anything that can
 * tell the facts of a line without building the whole entry (the byte scanner of
 * `@acx/claude-code`, which never parses a transcript's contents) folds it exactly as a parse
 * would.
 *
 * @internal
 */
import * as Pricing from "../Pricing.js"
import { get, isObj, type Plain } from "./plain.js"

/**
 * The facts of one transcript entry (a JSON object) the fold reads.
 *
 * @internal
 */
export interface EntryFacts {
  /** `timestamp`, when it is a string. */
  readonly timestamp: string | undefined
  /**
   * `parseTimestamp(timestamp)`, when the reader worked it out (a byte scanner does for Claude
   * Code's own shape); `undefined` leaves it to the fold.
   */
  readonly ms: number | undefined
  /** `agentId`, when it is a non-empty string. */
  readonly agentId: string | undefined
  /** `isSidechain === true`. */
  readonly sidechain: boolean
  /** `type`, when it is one the fold counts. */
  readonly kind: "assistant" | "user" | "system" | undefined
  /** `isMeta === true || isCompactSummary === true`. */
  readonly meta: boolean
  /** `subtype === "compact_boundary"`. */
  readonly compactBoundary: boolean
  /** `message.content` is a non-empty array of blocks whose `type` is each `"tool_result"`. */
  readonly toolResultOnly: boolean
  /** The `name` of every `tool_use` block of `message.content` that has a string one, in order. */
  readonly toolNames: ReadonlyArray<string>
  /** `message.id`, when it is a non-empty string. */
  readonly messageId: string | undefined
  /** `requestId` when it is a string, else `""`. */
  readonly requestId: string
  /** `StatsFold.modelKey` of `message.model`. */
  readonly model: string | undefined
  /** `Pricing.responseUsage` of `message.usage`, when that is an object (not an array). */
  readonly usage: Pricing.ResponseUsage | undefined
}

/**
 * The model key of usage without a model.
 *
 * @internal
 */
export const UNKNOWN_MODEL = "<unknown>"

// `Usage.SYNTHETIC_MODEL` (not imported: Usage's imports would pull Effect into the worker bundle)
const SYNTHETIC_MODEL = "<synthetic>"

/**
 * The key a message's model counts under: `undefined` for Claude Code's synthetic messages (they
 * count nothing), {@link UNKNOWN_MODEL} when it has none.
 *
 * @internal
 */
export const modelKey = (model: unknown): string | undefined =>
  model === SYNTHETIC_MODEL ? undefined : typeof model === "string" && model !== "" ? model : UNKNOWN_MODEL

const NO_NAMES: ReadonlyArray<string> = []

const kindOf = (type: unknown): EntryFacts["kind"] =>
  type === "assistant" || type === "user" || type === "system" ? type : undefined

const toolNamesOf = (content: unknown): ReadonlyArray<string> => {
  if (!Array.isArray(content)) return NO_NAMES
  let names: Array<string> | undefined
  for (const block of content) {
    const name = get(block, "name")
    if (get(block, "type") === "tool_use" && typeof name === "string") (names ??= []).push(name)
  }
  return names ?? NO_NAMES
}

/**
 * The facts of a parsed entry (an object).
 *
 * @internal
 */
export const factsOf = (entry: Plain): EntryFacts => {
  const message = entry["message"]
  const content = get(message, "content")
  const id = get(message, "id")
  const usage = get(message, "usage")
  const agentId = entry["agentId"]
  return {
    timestamp: typeof entry["timestamp"] === "string" ? entry["timestamp"] : undefined,
    ms: undefined,
    agentId: typeof agentId === "string" && agentId !== "" ? agentId : undefined,
    sidechain: entry["isSidechain"] === true,
    kind: kindOf(entry["type"]),
    meta: entry["isMeta"] === true || entry["isCompactSummary"] === true,
    compactBoundary: entry["subtype"] === "compact_boundary",
    toolResultOnly: Array.isArray(content) && content.length > 0 &&
      content.every((block) => get(block, "type") === "tool_result"),
    toolNames: toolNamesOf(content),
    messageId: typeof id === "string" && id !== "" ? id : undefined,
    requestId: typeof entry["requestId"] === "string" ? entry["requestId"] : "",
    model: modelKey(get(message, "model")),
    usage: isObj(usage) ? Pricing.responseUsage(usage) : undefined
  }
}
