/**
 * `tool_result.content` normalisation: whatever the SDK, a transcript or a caller hands us
 * becomes a string or a non-empty array of text items, the two shapes Acontext's anthropic
 * normaliser reads (it keeps only text, concatenated).
 *
 * @since 0.1.0
 */
import type * as AnthropicBlob from "@acx/schema/AnthropicBlob"
import { isNonEmptyReadonlyArray } from "effect/Array"
import { get, stringify } from "./internal/json.js"

/**
 * @since 0.1.0
 * @category models
 */
export type ToolResultContent = typeof AnthropicBlob.ToolResultContent.Type

/**
 * @since 0.1.0
 * @category models
 */
export type ToolResultTextItem = typeof AnthropicBlob.ToolResultTextItem.Type

/**
 * Normalises `tool_result.content`:
 * - `null` / `undefined` → `""`;
 * - a string → as is;
 * - an array → text items: an item with a string `text` becomes `{type: "text", text}` (empty
 *   text is kept: the API allows it in tool results), a string item becomes a text item, items
 *   without text (images, documents, tool references) are dropped; nothing left → `""`;
 * - anything else (number, boolean, object) → its JSON text.
 *
 * Total: never throws, whatever the input.
 *
 * @since 0.1.0
 * @category conversions
 */
export const normalizeToolResultContent = (content: unknown): ToolResultContent => {
  if (content === null || content === undefined) return ""
  if (typeof content === "string") return content
  if (Array.isArray(content)) {
    const items: Array<ToolResultTextItem> = []
    for (const item of content) {
      if (typeof item === "string") {
        items.push({ type: "text", text: item })
        continue
      }
      const text = get(item, "text")
      if (typeof text === "string") items.push({ type: "text", text })
    }
    return isNonEmptyReadonlyArray(items) ? items : ""
  }
  return stringify(content)
}

/**
 * `tool_result.content` as the text a reader sees (the session page, `acx chat`'s events, the
 * CLI's one-line summaries): a string as is; in an array, string items and text blocks by their
 * text, images left out (they are shown apart), any other block as `[type]`, one per line;
 * `null` / `undefined` → `""`; any other value as JSON.
 *
 * Total: never throws, whatever the input.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toolResultText = (content: unknown): string => {
  if (content === null || content === undefined) return ""
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return stringify(content, 2)
  const parts: Array<string> = []
  for (const item of content) {
    if (typeof item === "string") {
      parts.push(item)
      continue
    }
    const type = get(item, "type")
    const text = get(item, "text")
    if (type === "image") continue
    if ((type === "text" || type === undefined) && typeof text === "string") parts.push(text)
    else if (type === "text") parts.push("")
    else parts.push(`[${typeof type === "string" ? type : "block"}]`)
  }
  return parts.join("\n")
}

/**
 * The text Acontext keeps of `tool_result.content`: the text items of
 * {@link normalizeToolResultContent}, concatenated (what a stored message reads back as, so
 * what a comparison with a stored message must compare).
 *
 * @since 0.1.0
 * @category conversions
 */
export const storedToolResultText = (content: unknown): string => {
  const normalized = normalizeToolResultContent(content)
  return typeof normalized === "string" ? normalized : normalized.map((item) => item.text).join("")
}
