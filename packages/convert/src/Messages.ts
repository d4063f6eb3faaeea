/**
 * Message conversion (docs/convert.md, rules 7–9): an SDK user or assistant message in, the
 * Anthropic blob (and, for assistants, the `meta`) that acx stores in Acontext out.
 *
 * Inputs are `unknown`: TypeScript SDK messages, Python-SDK `asdict()` dicts, or any JSON.
 * Every function here is total.
 *
 * @since 0.1.0
 */
import type * as AnthropicBlob from "@acx/schema/AnthropicBlob"
import { type AnthropicBlock, collectBlocks, type ConversionOptions, convertBlock } from "./ContentBlocks.js"
import type { Obj } from "./internal/json.js"
import { fromPythonMessage } from "./PythonShape.js"

// Direct property loads (not a shared `get(value, key)` helper) keep each site's inline cache
// small: this is the hot path of every stored message.
const innerMessage = (message: unknown): Obj | undefined => {
  const normalized = fromPythonMessage(message)
  if (typeof normalized !== "object" || normalized === null) return undefined
  const inner = (normalized as Obj).message
  return typeof inner === "object" && inner !== null ? inner as Obj : undefined
}

/**
 * Converts a user message. Content is read from `message.content` (a string or blocks; missing
 * or `null` counts as `""`); `tool_use` and thinking blocks are skipped on the user side.
 * Returns `null` when nothing storable is left.
 *
 * @since 0.1.0
 * @category conversions
 */
export const claudeUserMessageToAnthropicBlob = (message: unknown): AnthropicBlob.UserBlob | null => {
  const content = innerMessage(message)?.content
  if (typeof content === "string") {
    return content === ""
      ? null
      : { role: "user", content: [{ type: "text", text: content }] }
  }
  if (!Array.isArray(content)) return null
  if (content.length === 1) {
    // The CLI emits one block per frame: skip the growable array on the common path.
    const block = convertBlock(content[0], "user")
    return block === null ? null : { role: "user", content: [block as AnthropicBlob.UserContentBlock] }
  }
  const blocks: Array<AnthropicBlock> = []
  collectBlocks(content, "user", undefined, blocks)
  return blocks.length === 0 ? null : { role: "user", content: blocks as unknown as AnthropicBlob.UserBlob["content"] }
}

/**
 * The result of converting an assistant message.
 *
 * @since 0.1.0
 * @category models
 */
export interface AssistantConversion {
  readonly blob: AnthropicBlob.AssistantBlob | null
  /** `true` when at least one thinking block was emitted. */
  readonly hasThinking: boolean
}

const noThinking: ConversionOptions = { includeThinking: false }
const withThinking: ConversionOptions = { includeThinking: true }
const emptyConversion: AssistantConversion = { blob: null, hasThinking: false }

const toOptions = (options: boolean | ConversionOptions | undefined): ConversionOptions =>
  options === undefined || options === false ? noThinking : options === true ? withThinking : options

/**
 * Converts an assistant message. Content is read from `message.content` (missing counts as
 * `[]`; a string becomes one text block); `tool_result` blocks are skipped on the assistant
 * side. The second argument is the `includeThinking` flag (as in Acontext's TypeScript
 * integration) or full {@link ConversionOptions}.
 *
 * @since 0.1.0
 * @category conversions
 */
export const claudeAssistantMessageToAnthropicBlob = (
  message: unknown,
  options?: boolean | ConversionOptions
): AssistantConversion => {
  const content = innerMessage(message)?.content
  if (typeof content === "string") {
    return content === ""
      ? emptyConversion
      : { blob: { role: "assistant", content: [{ type: "text", text: content }] }, hasThinking: false }
  }
  if (!Array.isArray(content)) return emptyConversion
  const resolved = toOptions(options)
  if (content.length === 1) {
    const block = convertBlock(content[0], "assistant", resolved)
    if (block === null) return emptyConversion
    const hasThinking = block.type === "thinking" || block.type === "redacted_thinking" ||
      (block.type === "text" && (content[0] as Obj).type === "thinking")
    return { blob: { role: "assistant", content: [block as AnthropicBlob.AssistantContentBlock] }, hasThinking }
  }
  const blocks: Array<AnthropicBlock> = []
  const hasThinking = collectBlocks(content, "assistant", resolved, blocks)
  return blocks.length === 0
    ? { blob: null, hasThinking }
    : { blob: { role: "assistant", content: blocks as unknown as AnthropicBlob.AssistantBlob["content"] }, hasThinking }
}

/**
 * The `meta` stored with an assistant message, or `null` when it would be empty
 * (docs/convert.md, rule 8): `model` (from `message.model`, when a non-empty string),
 * `has_thinking: true` (when a thinking block was emitted), `error` (the SDK's top-level `error`,
 * when truthy — the message is still stored, rule 9).
 *
 * @since 0.1.0
 * @category conversions
 */
export const assistantMeta = (message: unknown, hasThinking: boolean): AnthropicBlob.AssistantMeta | null => {
  const normalized = fromPythonMessage(message)
  if (typeof normalized !== "object" || normalized === null) return hasThinking ? { has_thinking: true } : null
  const inner = (normalized as Obj).message
  const model = typeof inner === "object" && inner !== null ? (inner as Obj).model : undefined
  const error = (normalized as Obj).error
  const hasModel = typeof model === "string" && model !== ""
  if (!error) {
    if (hasModel) return hasThinking ? { model, has_thinking: true } : { model }
    return hasThinking ? { has_thinking: true } : null
  }
  if (hasModel) return hasThinking ? { model, has_thinking: true, error } : { model, error }
  return hasThinking ? { has_thinking: true, error } : { error }
}
