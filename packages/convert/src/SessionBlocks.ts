/**
 * The blocks of a transcript entry as the session page shows them: each content block as a
 * {@link SessionItem.Part} (a prompt's Claude Code markup read, texts masked then cut), a tool
 * result with its text (`ToolResult.toolResultText`, escapes stripped) and images, and the whole
 * text (or an image's data URL) a {@link SessionItem.BlockRef} names, for what was cut. Total:
 * any JSON value in; nothing here throws or does I/O.
 *
 * @since 0.1.0
 */
import * as CommandMarkup from "./CommandMarkup.js"
import { getOwn as get, isObj, nonEmptyString as str, type Obj, stringify } from "./internal/json.js"
import { type BlockRef, capped, type ImagePart, type Part, type Text, type ToolResult } from "./SessionItem.js"
import { displayOf } from "./ToolDisplay.js"
import { toolResultText } from "./ToolResult.js"

const cap = (text: string): Text => capped(text)

// JSON for the page, pretty; never throws (a value from JSON.parse has no cycles or BigInts, but
// the fold takes any value)
const json = (value: unknown): string => stringify(value, 2)

/**
 * The blocks of a message's `content`: its array, or a string content as one block.
 *
 * @since 0.1.0
 * @category blocks
 */
export const contentOf = (message: unknown): ReadonlyArray<unknown> => {
  const content = get(message, "content")
  if (Array.isArray(content)) return content
  return typeof content === "string" ? [content] : []
}

const IMAGE_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"])

/**
 * An image block as an {@link SessionItem.ImagePart} (its data loads on demand); `undefined` for
 * any other block.
 *
 * @since 0.1.0
 * @category blocks
 */
export const imageOf = (block: unknown, ref: BlockRef): ImagePart | undefined => {
  if (get(block, "type") !== "image") return undefined
  const source = get(block, "source")
  const data = get(source, "data")
  const mediaType = str(get(source, "media_type")) ?? "image"
  return { type: "image", mediaType, size: typeof data === "string" ? data.length : 0, ref }
}

// A user's text as Claude Code's markup read (`null`: nothing to show, an empty output), or
// `undefined` when it is no markup.
const markupPart = (text: string, ref: BlockRef, mask: (text: string) => string): Part | null | undefined => {
  const markup = CommandMarkup.parse(text)
  if (markup === undefined) return undefined
  switch (markup._tag) {
    case "Command":
      return { type: "command", command: mask(markup.command), ref }
    case "Output": {
      const plain = CommandMarkup.plain(markup)
      if (plain === "") return null
      return { type: "output", text: cap(mask(plain)), isError: markup.stdout === "" && markup.stderr !== "", ref }
    }
    case "Caveat":
      return markup.text === "" ? null : { type: "text", text: cap(mask(markup.text)), ref }
  }
}

/**
 * One content block as the page shows it (`fromUser`: a prompt's block, whose Claude Code markup
 * is read); `undefined` for what shows nothing (blank text, a markup without output). Every text
 * goes through `mask` before it is cut.
 *
 * @since 0.1.0
 * @category blocks
 */
export const partOf = (
  block: unknown,
  ref: BlockRef,
  mask: (text: string) => string,
  fromUser = false
): Part | undefined => {
  const capped = (text: string) => cap(mask(text))
  const text = typeof block === "string" ? block : get(block, "type") === "text" ? get(block, "text") : undefined
  if (fromUser && typeof text === "string") {
    const markup = markupPart(text, ref, mask)
    if (markup !== undefined) return markup ?? undefined
  }
  if (typeof block === "string") return block.trim() === "" ? undefined : { type: "text", text: capped(block), ref }
  if (!isObj(block)) return undefined
  switch (block.type) {
    case "text":
      return typeof block.text === "string" && block.text.trim() !== ""
        ? { type: "text", text: capped(block.text), ref }
        : undefined
    case "thinking":
      return typeof block.thinking === "string" && block.thinking !== ""
        ? { type: "thinking", text: capped(block.thinking), ref }
        : undefined
    case "redacted_thinking":
      return { type: "thinking", text: capped("(redacted thinking)"), ref }
    case "tool_use":
    case "server_tool_use": {
      const id = str(block.id)
      if (id === undefined) break
      const display = displayOf(block.name, block.input, mask)
      return {
        type: "tool",
        id,
        name: mask(str(block.name) ?? "tool"),
        input: capped(json(block.input ?? {})),
        ...(display === undefined ? {} : { display }),
        ref
      }
    }
    case "image":
      return imageOf(block, ref)
  }
  return { type: "other", blockType: mask(str(block.type) ?? "block"), raw: capped(json(block)), ref }
}

/**
 * A `tool_result` block as the page shows it: its text (`ToolResult.toolResultText`, terminal
 * escapes stripped, masked, cut) and its images.
 *
 * @since 0.1.0
 * @category blocks
 */
export const resultOf = (
  block: Obj,
  ref: BlockRef,
  timestamp: string | undefined,
  mask: (text: string) => string
): ToolResult => {
  const content = block.content
  const images = Array.isArray(content)
    ? content.flatMap((item, sub) => {
      const image = imageOf(item, { ...ref, sub })
      return image === undefined ? [] : [image]
    })
    : []
  const text = capped(mask(CommandMarkup.stripAnsi(toolResultText(content))))
  return { isError: block.is_error === true, text, images, ref, timestamp }
}

/**
 * The whole text (or an image's data URL) a {@link BlockRef} names in its entry, as the fold
 * cut it: a tool call's input as pretty JSON, a tool result's text, a text or thinking block, a
 * string content, the whole entry (`block: -1`) as JSON. `undefined` when the entry has no such
 * block.
 *
 * @since 0.1.0
 * @category blocks
 */
export const fullBlock = (
  entry: unknown,
  ref: Omit<BlockRef, "line">
): { readonly text: string } | { readonly dataUrl: string } | undefined => {
  if (ref.block === -1) return { text: json(entry) }
  const message = get(entry, "message")
  const content = get(message, "content")
  // a prompt's command markup in full as the fold showed it: read, not raw
  const userText = (text: string) =>
    get(entry, "type") === "user" && CommandMarkup.parse(text) !== undefined ? CommandMarkup.readable(text) : text
  if (typeof content === "string") {
    return ref.block === 0 && ref.sub === undefined ? { text: userText(content) } : undefined
  }
  if (!Array.isArray(content) || !Number.isInteger(ref.block) || ref.block < 0 || ref.block >= content.length) {
    return undefined
  }
  const block: unknown = content[ref.block]
  if (ref.sub !== undefined) {
    const inner = get(block, "content")
    if (!Array.isArray(inner) || !Number.isInteger(ref.sub) || ref.sub < 0 || ref.sub >= inner.length) {
      return undefined
    }
    return imageData(inner[ref.sub])
  }
  if (typeof block === "string") return { text: userText(block) }
  switch (get(block, "type")) {
    case "text":
      return { text: userText(String(get(block, "text") ?? "")) }
    case "thinking":
      return { text: String(get(block, "thinking") ?? "") }
    case "tool_use":
    case "server_tool_use":
      return { text: json(get(block, "input") ?? {}) }
    case "tool_result":
      return { text: CommandMarkup.stripAnsi(toolResultText(get(block, "content"))) }
    case "image":
      return imageData(block)
    default:
      return { text: json(block) }
  }
}

const imageData = (block: unknown): { readonly dataUrl: string } | undefined => {
  const source = get(block, "source")
  const data = get(source, "data")
  const mediaType = get(source, "media_type")
  // only raster types a browser shows without running anything (no SVG), only base64 letters
  if (
    get(block, "type") !== "image" || get(source, "type") !== "base64" || typeof data !== "string" ||
    typeof mediaType !== "string" || !IMAGE_TYPES.has(mediaType) || !/^[A-Za-z0-9+/=\s]*$/.test(data)
  ) return undefined
  return { dataUrl: `data:${mediaType};base64,${data.replace(/\s+/g, "")}` }
}
