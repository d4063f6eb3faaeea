/**
 * Content block conversion (docs/convert.md, rules 4–6; the decisions are in docs/design.md,
 * "Behaviour decisions for ClaudeAgentStorage"): one SDK content block in, one Anthropic block
 * or nothing out; a content value in, the blocks plus whether a thinking block was actually
 * emitted.
 *
 * @since 0.1.0
 */
import type * as AnthropicBlob from "@acx/schema/AnthropicBlob"
import type { Obj } from "./internal/json.js"
import { normalizeToolResultContent } from "./ToolResult.js"
import { normalizeToolUseInput } from "./ToolUse.js"

/**
 * How thinking is represented when it is included: `"text"` (the default, as Acontext's
 * integration plans specify: a text block, flagged by `meta.has_thinking`) or `"native"`
 * (`{type: "thinking", thinking, signature}`, and `redacted_thinking` kept; falls back to text
 * when the block has no string signature). See docs/design.md#behaviour-decisions-for-claudeagentstorage.
 *
 * @since 0.1.0
 * @category models
 */
export type ThinkingFormat = "text" | "native"

/**
 * @since 0.1.0
 * @category models
 */
export interface ConversionOptions {
  /** Store thinking blocks (default `false`: they are dropped). */
  readonly includeThinking?: boolean | undefined
  /** Representation of included thinking (default `"text"`). */
  readonly thinkingFormat?: ThinkingFormat | undefined
}

/**
 * The role a block is converted for: some blocks are valid on one side only.
 *
 * @since 0.1.0
 * @category models
 */
export type Role = "user" | "assistant"

/**
 * Any block acx emits, user or assistant side.
 *
 * @since 0.1.0
 * @category models
 */
export type AnthropicBlock = AnthropicBlob.UserContentBlock | AnthropicBlob.AssistantContentBlock

/**
 * The result of converting a content value.
 *
 * @since 0.1.0
 * @category models
 */
export interface ConvertedContent<Block extends AnthropicBlock = AnthropicBlock> {
  readonly blocks: Array<Block>
  /** `true` when at least one thinking block was emitted (not merely present). */
  readonly hasThinking: boolean
}

const isAttachmentSource = (source: unknown): boolean => {
  if (typeof source !== "object" || source === null) return false
  const s = source as Obj
  switch (s.type) {
    case "base64":
      return typeof s.media_type === "string" && typeof s.data === "string"
    case "url":
      return typeof s.url === "string"
    default:
      return false
  }
}

const convertThinking = (block: Obj, format: ThinkingFormat | undefined): AnthropicBlock | null => {
  const thinking = block.thinking
  if (typeof thinking !== "string" || thinking === "") return null
  const signature = block.signature
  return format === "native" && typeof signature === "string"
    ? { type: "thinking", thinking, signature }
    : { type: "text", text: thinking }
}

/**
 * Converts one block, or returns `null` to skip it:
 * - `text`: kept when `text` is a non-empty string (citations and other fields dropped);
 * - `thinking`: assistant only, with `includeThinking` and non-empty `thinking` (see
 *   {@link ThinkingFormat});
 * - `redacted_thinking`: assistant only, with `includeThinking` and `thinkingFormat: "native"`;
 * - `tool_use`: assistant only, string `id` and `name`, `input` normalised to an object;
 * - `tool_result`: user only, string `tool_use_id`, `content` normalised, `is_error: true` only
 *   when truthy;
 * - `image` / `document`: user only, with a complete `base64` (`media_type`, `data`) or `url`
 *   source, passed through as is;
 * - anything else (server tools, unknown types, non-objects): skipped.
 *
 * @since 0.1.0
 * @category conversions
 */
export const convertBlock = (block: unknown, role: Role, options?: ConversionOptions): AnthropicBlock | null =>
  role === "user" ? convertUserBlock(block) : convertAssistantBlock(block, options)

// One small converter per role (rather than one switch checking the role in every case) keeps
// both inlinable and their property-load sites monomorphic-ish on real streams.
const convertText = (block: Obj): AnthropicBlock | null => {
  const text = block.text
  return typeof text === "string" && text !== "" ? { type: "text", text } : null
}

const convertToolResult = (block: Obj): AnthropicBlock | null => {
  const toolUseId = block.tool_use_id
  if (typeof toolUseId !== "string") return null
  const content = normalizeToolResultContent(block.content)
  return block.is_error
    ? { type: "tool_result", tool_use_id: toolUseId, content, is_error: true }
    : { type: "tool_result", tool_use_id: toolUseId, content }
}

const convertToolUse = (block: Obj): AnthropicBlock | null => {
  const id = block.id
  const name = block.name
  return typeof id === "string" && typeof name === "string"
    ? { type: "tool_use", id, name, input: normalizeToolUseInput(block.input) }
    : null
}

const convertRedactedThinking = (block: Obj, options: ConversionOptions | undefined): AnthropicBlock | null => {
  const data = block.data
  return options?.includeThinking === true && options.thinkingFormat === "native" && typeof data === "string"
    ? { type: "redacted_thinking", data }
    : null
}

const convertUserBlock = (block: unknown): AnthropicBlock | null => {
  if (typeof block !== "object" || block === null) return null
  const b = block as Obj
  switch (b.type) {
    case "tool_result":
      return convertToolResult(b)
    case "text":
      return convertText(b)
    case "image":
    case "document":
      return isAttachmentSource(b.source) ? b as AnthropicBlock : null
    default:
      return null
  }
}

const convertAssistantBlock = (block: unknown, options: ConversionOptions | undefined): AnthropicBlock | null => {
  if (typeof block !== "object" || block === null) return null
  const b = block as Obj
  switch (b.type) {
    case "text":
      return convertText(b)
    case "tool_use":
      return convertToolUse(b)
    case "thinking":
      return options?.includeThinking === true ? convertThinking(b, options.thinkingFormat) : null
    case "redacted_thinking":
      return convertRedactedThinking(b, options)
    default:
      return null
  }
}

/**
 * Converts the blocks of an array `content` into `out` (the hot path: no intermediate
 * allocations); returns whether a thinking block was emitted.
 *
 * @internal
 */
export const collectBlocks = (
  content: ReadonlyArray<unknown>,
  role: Role,
  options: ConversionOptions | undefined,
  out: Array<AnthropicBlock>
): boolean => {
  if (role === "user") {
    for (let i = 0; i < content.length; i++) {
      const converted = convertUserBlock(content[i])
      if (converted !== null) out.push(converted)
    }
    return false
  }
  let hasThinking = false
  for (let i = 0; i < content.length; i++) {
    const converted = convertAssistantBlock(content[i], options)
    if (converted === null) continue
    out.push(converted)
    if (converted.type === "thinking" || converted.type === "redacted_thinking") hasThinking = true
    else if (converted.type === "text" && (content[i] as Obj).type === "thinking") hasThinking = true
  }
  return hasThinking
}

/**
 * Converts a message's `content`: a non-empty string becomes one text block; an array is
 * converted block by block (non-object items skipped); anything else yields no blocks.
 *
 * @since 0.1.0
 * @category conversions
 */
export const convertContentBlocks = (content: unknown, role: Role, options?: ConversionOptions): ConvertedContent => {
  if (typeof content === "string") {
    return { blocks: content === "" ? [] : [{ type: "text", text: content }], hasThinking: false }
  }
  const blocks: Array<AnthropicBlock> = []
  const hasThinking = Array.isArray(content) ? collectBlocks(content, role, options, blocks) : false
  return { blocks, hasThinking }
}
