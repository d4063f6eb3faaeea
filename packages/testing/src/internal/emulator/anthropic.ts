/**
 * The server's `format: "anthropic"` handling: the normalizer (blob → stored parts) and the
 * converter (stored parts → Anthropic blocks), following the Acontext server's
 * `internal/pkg/normalizer/anthropic.go` and `internal/pkg/converter/anthropic.go`
 * (memodb-io/Acontext, under `src/server/api/go/`).
 *
 * @internal
 */
import type * as Acontext from "@acx/schema/Acontext"
import { isObject } from "@acx/schema/Json"
import { err, marshal, ok, type Result, unmarshalValueError } from "./go.js"

type Obj = { readonly [key: string]: unknown }

/** @internal */
export interface NormalizedMessage {
  readonly role: "user" | "assistant"
  readonly parts: ReadonlyArray<Acontext.Part>
}

const str = (value: unknown): string => (typeof value === "string" ? value : "")

const withCacheControl = (block: Obj, meta: Record<string, unknown>): Record<string, unknown> => {
  const cacheControl = block["cache_control"]
  if (isObject(cacheControl) && typeof cacheControl["type"] === "string" && cacheControl["type"] !== "") {
    meta["cache_control"] = { type: cacheControl["type"] }
  }
  return meta
}

/** A stored part, with Go's `omitempty` on `text` and `meta`. */
const part = (type: string, text: string, meta: Record<string, unknown> | undefined): Acontext.Part => {
  const out: { type: string; text?: string; meta?: Record<string, unknown> } = { type }
  if (text !== "") out.text = text
  if (meta !== undefined) out.meta = meta
  return out
}

const sourceMeta = (block: Obj): Record<string, unknown> => {
  const meta: Record<string, unknown> = {}
  const source = block["source"]
  if (isObject(source)) {
    if (source["type"] === "base64") {
      meta["type"] = "base64"
      meta["media_type"] = str(source["media_type"])
      meta["data"] = str(source["data"])
    } else if (source["type"] === "url") {
      meta["type"] = "url"
      meta["url"] = str(source["url"])
    }
  }
  return withCacheControl(block, meta)
}

const toolResultText = (content: unknown): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  let text = ""
  for (const item of content) {
    if (isObject(item) && (item["type"] === "text" || item["type"] === undefined) && typeof item["text"] === "string") {
      text += item["text"]
    }
  }
  return text
}

const normalizeBlock = (block: Obj): Acontext.Part | undefined => {
  switch (block["type"]) {
    case "text": {
      const meta = withCacheControl(block, {})
      return part("text", str(block["text"]), Object.keys(meta).length > 0 ? meta : undefined)
    }
    case "image":
      return part("image", "", sourceMeta(block))
    case "document":
      return part("file", "", sourceMeta(block))
    case "tool_use":
      return part(
        "tool-call",
        "",
        withCacheControl(block, {
          id: str(block["id"]),
          name: str(block["name"]),
          arguments: marshal(block["input"]),
          type: "tool_use"
        })
      )
    case "tool_result":
      return part(
        "tool-result",
        toolResultText(block["content"]),
        withCacheControl(block, { tool_call_id: str(block["tool_use_id"]), is_error: block["is_error"] === true })
      )
    case "thinking":
      return part("thinking", str(block["thinking"]), { signature: str(block["signature"]) })
    case "redacted_thinking":
      return part("redacted_thinking", "", { data: str(block["data"]) })
    default:
      return undefined
  }
}

/**
 * The anthropic normalizer: only `role` is validated; string content is one text block; blocks
 * of other types (and non-object items) are skipped; missing or `null` content gives no parts.
 *
 * @internal
 */
export const normalize = (blob: unknown): Result<NormalizedMessage> => {
  if (!isObject(blob)) {
    return err(`failed to unmarshal Anthropic message: ${unmarshalValueError(blob, "anthropic.MessageParam")}`)
  }
  const role = blob["role"]
  if (role !== "user" && role !== "assistant") {
    return err(
      `invalid Anthropic role: ${typeof role === "string" ? role : ""} (only 'user' and 'assistant' are supported)`
    )
  }
  const content = blob["content"]
  if (content === undefined || content === null) return ok({ role, parts: [] })
  if (typeof content === "string") return ok({ role, parts: [part("text", content, undefined)] })
  if (!Array.isArray(content)) {
    return err(
      `failed to unmarshal Anthropic message: ${unmarshalValueError(content, "[]anthropic.ContentBlockParamUnion")}`
    )
  }
  const parts: Array<Acontext.Part> = []
  for (const block of content) {
    if (!isObject(block)) continue
    const normalized = normalizeBlock(block)
    if (normalized !== undefined) parts.push(normalized)
  }
  return ok({ role, parts })
}

const metaOf = (p: Acontext.Part): Obj => (isObject(p.meta) ? p.meta : {})

const parseArguments = (value: unknown): unknown => {
  if (typeof value !== "string") return value ?? {}
  try {
    return JSON.parse(value) as unknown
  } catch {
    return {}
  }
}

const toSource = (meta: Obj): Obj | undefined => {
  if (meta["type"] === "base64") {
    const mediaType = str(meta["media_type"])
    const data = str(meta["data"])
    return mediaType !== "" && data !== "" ? { type: "base64", media_type: mediaType, data } : undefined
  }
  if (meta["type"] === "url") {
    const url = str(meta["url"])
    return url !== "" ? { type: "url", url } : undefined
  }
  return undefined
}

const convertPart = (p: Acontext.Part): Obj | undefined => {
  const meta = metaOf(p)
  const text = p.text ?? ""
  switch (p.type) {
    case "text": {
      if (text === "") return undefined
      const cacheControl = meta["cache_control"]
      return isObject(cacheControl) && cacheControl["type"] === "ephemeral"
        ? { type: "text", text, cache_control: { type: "ephemeral" } }
        : { type: "text", text }
    }
    case "image": {
      const source = toSource(meta)
      return source === undefined ? undefined : { type: "image", source }
    }
    case "file": {
      const source = toSource(meta)
      return source === undefined ? undefined : { type: "document", source }
    }
    case "tool-call": {
      const id = str(meta["id"])
      const name = str(meta["name"])
      if (id === "" || name === "") return undefined
      return { type: "tool_use", id, name, input: parseArguments(meta["arguments"]) }
    }
    case "tool-result": {
      const toolUseId = str(meta["tool_use_id"]) || str(meta["tool_call_id"])
      if (toolUseId === "") return undefined
      return {
        type: "tool_result",
        tool_use_id: toolUseId,
        content: [{ type: "text", text }],
        is_error: meta["is_error"] === true
      }
    }
    case "thinking":
      return text === "" ? undefined : { type: "thinking", thinking: text, signature: str(meta["signature"]) }
    case "redacted_thinking":
      return { type: "redacted_thinking", data: str(meta["data"]) }
    default:
      return undefined
  }
}

/**
 * The anthropic converter for one stored message: `{ role, content }`, with empty text and
 * thinking parts, tool calls without id or name and tool results without id left out.
 *
 * @internal
 */
export const toAnthropic = (role: string, parts: ReadonlyArray<Acontext.Part>): Obj => {
  const content: Array<Obj> = []
  for (const p of parts) {
    const block = convertPart(p)
    if (block !== undefined) content.push(block)
  }
  return { role: role === "assistant" ? "assistant" : "user", content }
}

/**
 * A token estimate for `this_time_tokens`: a quarter of the characters of text, thinking,
 * tool-result text and tool-call name and arguments, rounded up per part.
 *
 * @internal
 */
export const estimateTokens = (parts: ReadonlyArray<Acontext.Part>): number => {
  let tokens = 0
  for (const p of parts) {
    const meta = metaOf(p)
    const chars = (p.text ?? "").length +
      (p.type === "tool-call" ? str(meta["name"]).length + str(meta["arguments"]).length : 0)
    tokens += Math.ceil(chars / 4)
  }
  return tokens
}
