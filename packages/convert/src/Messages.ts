/**
 * Message conversion (seed rules 6–8 and 11): an SDK user or assistant message in, the
 * Anthropic blob (and, for assistants, the `meta`) that acx stores in Acontext out.
 *
 * Inputs are `unknown`: TypeScript SDK messages, Python-SDK `asdict()` dicts, or any JSON.
 * Every function here is total.
 *
 * @since 0.1.0
 */
import type * as AnthropicBlob from "@acx/schema/AnthropicBlob"
import type { JsonValue } from "@acx/schema/Json"
import { isNonEmptyArray } from "effect/Array"
import { type ConversionOptions, convertContentBlocks } from "./ContentBlocks.js"
import { get } from "./internal/json.js"
import { fromPythonMessage } from "./PythonShape.js"

/**
 * Converts a user message. Content is read from `message.content` (a string or blocks; missing
 * or `null` counts as `""`); `tool_use` and thinking blocks are skipped on the user side.
 * Returns `null` when nothing storable is left.
 *
 * @since 0.1.0
 * @category conversions
 */
export const claudeUserMessageToAnthropicBlob = (message: unknown): AnthropicBlob.UserBlob | null => {
  const content = get(get(fromPythonMessage(message), "message"), "content") ?? ""
  const { blocks } = convertContentBlocks(content, "user")
  return isNonEmptyArray(blocks) ? { role: "user", content: blocks as AnthropicBlob.UserBlob["content"] } : null
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

const toOptions = (options: boolean | ConversionOptions | undefined): ConversionOptions =>
  typeof options === "boolean" ? { includeThinking: options } : options ?? {}

/**
 * Converts an assistant message. Content is read from `message.content` (missing counts as
 * `[]`); `tool_result` blocks are skipped on the assistant side. The second argument is the
 * seed's `includeThinking` flag or full {@link ConversionOptions}.
 *
 * @since 0.1.0
 * @category conversions
 */
export const claudeAssistantMessageToAnthropicBlob = (
  message: unknown,
  options?: boolean | ConversionOptions
): AssistantConversion => {
  const content = get(get(fromPythonMessage(message), "message"), "content") ?? []
  const { blocks, hasThinking } = convertContentBlocks(content, "assistant", toOptions(options))
  return isNonEmptyArray(blocks)
    ? { blob: { role: "assistant", content: blocks as AnthropicBlob.AssistantBlob["content"] }, hasThinking }
    : { blob: null, hasThinking }
}

/**
 * The `meta` stored with an assistant message, or `null` when it would be empty (seed rule 8):
 * `model` (from `message.model`, when a non-empty string), `has_thinking: true` (when a thinking
 * block was emitted), `error` (the SDK's top-level `error`, when truthy — the message is still
 * stored, rule 11).
 *
 * @since 0.1.0
 * @category conversions
 */
export const assistantMeta = (message: unknown, hasThinking: boolean): AnthropicBlob.AssistantMeta | null => {
  const normalized = fromPythonMessage(message)
  const model = get(get(normalized, "message"), "model")
  const error = get(normalized, "error")
  const meta: { model?: string; has_thinking?: true; error?: JsonValue } = {}
  let empty = true
  if (typeof model === "string" && model !== "") {
    meta.model = model
    empty = false
  }
  if (hasThinking) {
    meta.has_thinking = true
    empty = false
  }
  if (error) {
    meta.error = error as JsonValue
    empty = false
  }
  return empty ? null : meta
}
