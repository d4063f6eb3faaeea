/**
 * One transcript line read as an entry, without Effect: the depth cap, `JSON.parse`, and the
 * envelope every entry has (a string `type`; `uuid` and `timestamp` strings when present).
 * `TranscriptLine.decodeLine` words what this tells apart as a `TranscriptLineError`; a reader
 * that starts without Effect (the session index's head and tail reads) takes the entry alone.
 *
 * @since 0.5.0
 */
import { exceedsDepth } from "./JsonDepth.js"
import { isObject } from "./JsonGuards.js"

/**
 * A parsed JSON object.
 *
 * @since 0.5.0
 * @category models
 */
export type JsonRecord = { readonly [key: string]: unknown }

/**
 * What a line is: an `Entry` (the parsed object itself, every field in its original order), or
 * why it is none: `TooDeep` (nested deeper than `JsonDepth.MAX_DEPTH`, refused before it is
 * parsed), `InvalidJson` (with `JSON.parse`'s message), `NotAnObject`, `InvalidEntry` (an object
 * without the envelope).
 *
 * @since 0.5.0
 * @category models
 */
export type LineRead =
  | { readonly _tag: "Entry"; readonly entry: JsonRecord }
  | { readonly _tag: "TooDeep" }
  | { readonly _tag: "InvalidJson"; readonly message: string }
  | { readonly _tag: "NotAnObject"; readonly value: unknown }
  | { readonly _tag: "InvalidEntry"; readonly value: JsonRecord }

/**
 * The one check that decides whether a parsed object is an entry: what `TranscriptLine.UnknownEntry`,
 * the union's catch-all, requires (a string `type`; `uuid` and `timestamp` strings when present).
 * Every known member requires at least as much, so the full union accepts exactly these objects,
 * and, as every member preserves unknown fields in their original order and none transforms, its
 * output is JSON-equal to the input (a deep copy, but for an explicit `undefined` where a required
 * `Schema.Unknown` key is absent). Validating the known members at parse time therefore only costs
 * time: whether an entry matches its known schema is asked on demand, by `Transcript.isKnown`.
 *
 * @since 0.5.0
 * @category guards
 */
export const isEntryEnvelope = (value: JsonRecord): boolean => {
  if (typeof value.type !== "string") return false
  const uuid = value.uuid
  if (uuid !== undefined && typeof uuid !== "string") return false
  const timestamp = value.timestamp
  return timestamp === undefined || typeof timestamp === "string"
}

/**
 * Reads one line (see {@link LineRead}); never throws.
 *
 * @since 0.5.0
 * @category decoding
 */
export const readLine = (text: string): LineRead => {
  // refused before it is parsed: nothing downstream can serialise or walk it (see JsonDepth)
  if (exceedsDepth(text)) return { _tag: "TooDeep" }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { _tag: "InvalidJson", message: error instanceof Error ? error.message : String(error) }
  }
  if (!isObject(value)) return { _tag: "NotAnObject", value }
  return isEntryEnvelope(value) ? { _tag: "Entry", entry: value } : { _tag: "InvalidEntry", value }
}

/**
 * The entry a line holds, or `undefined` for a line that is none ({@link readLine}'s `Entry`).
 *
 * @since 0.5.0
 * @category decoding
 */
export const entryOf = (text: string): JsonRecord | undefined => {
  const read = readLine(text)
  return read._tag === "Entry" ? read.entry : undefined
}
