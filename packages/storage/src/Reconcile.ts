/**
 * Exactly-once delivery after an ambiguous failure, the pure part: was the message acx just
 * tried to store already stored by the attempt whose answer was lost?
 *
 * A store request that times out, loses its connection or gets a 5xx may have been applied by
 * the server. Before trying again, acx reads the session's tail (the newest messages, with their
 * ids) and asks {@link verdict}: the message counts as stored when the newest message of the
 * session is not the one acx knows it stored last (`after`) and has the same role, content and
 * meta. Content is compared in the form Acontext reads it back ({@link sameMessage}: empty texts
 * dropped, tool results flattened to their text, tool inputs not compared), so a message
 * survives the server's normalisation. `after` — the id of the session's newest message before
 * this one, known from the previous store's answer — tells a retry apart from two consecutive
 * messages that happen to be equal; without it (`undefined`: a restart, or the first store of
 * a session) only the content decides.
 *
 * @since 0.1.0
 */
import { storedToolResultText } from "@acx/convert/ToolResult"

/**
 * One stored message as read back: its id, the Anthropic-format message, and its user meta when
 * the server returned metas (`undefined`: not known, so not compared).
 *
 * @since 0.1.0
 * @category models
 */
export interface TailMessage {
  readonly id: string
  readonly message: unknown
  readonly meta?: { readonly [key: string]: unknown } | undefined
}

/**
 * What the tail says about the message being stored:
 * - `Stored`: the lost attempt was applied; `id` is the stored message's id;
 * - `Absent`: it was not; store it (the session's newest message is then `after`).
 *
 * @since 0.1.0
 * @category models
 */
export type Verdict =
  | { readonly _tag: "Stored"; readonly id: string }
  | { readonly _tag: "Absent"; readonly after: string | null }

/**
 * @since 0.1.0
 * @category models
 */
export interface VerdictInput {
  /**
   * The id of the session's newest message before this one, as acx last saw it: a string, `null`
   * for an empty session, `undefined` when not known.
   */
  readonly after: string | null | undefined
  /** The session's newest messages, oldest first (the last one is the newest). */
  readonly tail: ReadonlyArray<TailMessage>
  /** The blob being stored (Anthropic format). */
  readonly blob: unknown
  /** Its meta (`null`: none). */
  readonly meta: { readonly [key: string]: unknown } | null | undefined
}

type Obj = { readonly [key: string]: unknown }

const isObj = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value)

const str = (value: unknown): string => (typeof value === "string" ? value : "")

// An attachment is read back only with a complete source: base64 with its media type, or a URL.
const sourceKey = (block: Obj): string => {
  const source = block["source"]
  if (!isObj(source)) return ""
  if (source["type"] === "url") return str(source["url"]) === "" ? "" : `url:${str(source["url"])}`
  if (source["type"] !== "base64" || str(source["media_type"]) === "" || str(source["data"]) === "") return ""
  return `${str(source["media_type"])}:${str(source["data"])}`
}

// One block as it survives Acontext's store and read-back, or nothing when the server drops it.
const blockKey = (block: unknown): ReadonlyArray<string> | undefined => {
  if (!isObj(block)) return undefined
  switch (block["type"]) {
    case "text":
      return str(block["text"]) === "" ? undefined : ["text", str(block["text"])]
    case "thinking":
      return str(block["thinking"]) === "" ? undefined : ["thinking", str(block["thinking"])]
    case "redacted_thinking":
      return ["redacted_thinking", str(block["data"])]
    case "tool_use":
      return str(block["id"]) === "" || str(block["name"]) === ""
        ? undefined
        : ["tool_use", str(block["id"]), str(block["name"])]
    case "tool_result":
      return str(block["tool_use_id"]) === ""
        ? undefined
        : ["tool_result", str(block["tool_use_id"]), storedToolResultText(block["content"])]
    case "image":
    case "document":
      return sourceKey(block) === "" ? undefined : [block["type"], sourceKey(block)]
    default:
      return undefined
  }
}

/**
 * A message's identity as Acontext reads it back: its role and, block by block, what the server
 * keeps (texts, thinking texts, tool ids and names, tool result texts, attachment sources).
 * Total: any value in, a string out.
 *
 * @since 0.1.0
 * @category comparing
 */
export const readBackKey = (message: unknown): string => {
  if (!isObj(message)) return JSON.stringify(null)
  const role = message["role"] === "assistant" ? "assistant" : "user"
  const content = message["content"]
  const blocks = typeof content === "string"
    ? (content === "" ? [] : [["text", content]])
    : Array.isArray(content)
    ? content.flatMap((block) => {
      const key = blockKey(block)
      return key === undefined ? [] : [key]
    })
    : []
  return JSON.stringify([role, blocks])
}

// JSON with object keys sorted, so metas compare whatever order the server keeps.
const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical)
  if (!isObj(value)) return value
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical(value[key])]))
}

const sameMeta = (sent: Obj | null | undefined, stored: Obj | undefined): boolean =>
  stored === undefined || JSON.stringify(canonical(sent ?? {})) === JSON.stringify(canonical(stored))

/**
 * Whether a stored message is the one sent: same role and content as read back
 * ({@link readBackKey}), and the same meta when the server returned it.
 *
 * @since 0.1.0
 * @category comparing
 */
export const sameMessage = (
  sent: { readonly blob: unknown; readonly meta: Obj | null | undefined },
  stored: TailMessage
): boolean => readBackKey(sent.blob) === readBackKey(stored.message) && sameMeta(sent.meta, stored.meta)

/**
 * Decides, from the session's tail, whether the message was already stored (see the module
 * docs). Total.
 *
 * @since 0.1.0
 * @category deciding
 */
export const verdict = (input: VerdictInput): Verdict => {
  const newest = input.tail.at(-1)
  if (newest === undefined) return { _tag: "Absent", after: null }
  if (input.after !== undefined && newest.id === input.after) return { _tag: "Absent", after: newest.id }
  return sameMessage({ blob: input.blob, meta: input.meta }, newest)
    ? { _tag: "Stored", id: newest.id }
    : { _tag: "Absent", after: newest.id }
}

/**
 * Whether a failure of a store request leaves it unknown if the server applied it: no answer
 * (transport, timeout) or a server error (5xx) after the request was sent. Rejections (4xx,
 * 429) were not applied.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isAmbiguousReason = (reason: string): boolean =>
  reason === "Transport" || reason === "Timeout" || reason === "Server"
