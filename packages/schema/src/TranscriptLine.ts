/**
 * Reading one line of a Claude Code transcript: the envelope every entry has (a string `type`;
 * `uuid` and `timestamp` strings when present), checked without the schemas of the entry kinds,
 * and what a line that is no entry is reported as. `Transcript` holds the entry schemas and builds
 * on this module (never the other way round); this module is what a reader loads, because building
 * those schemas takes a tenth of a second that listing, showing or counting sessions does not need
 * (as `HookEvents` is to `Hook`).
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { excerpt, formatIssues, opt, orElse, preserve } from "./internal/schema.js"
import { tooDeepDescription } from "./JsonDepth.js"
import { isObject } from "./JsonGuards.js"
import * as TranscriptEnvelope from "./TranscriptEnvelope.js"

/**
 * An entry of a `type` this version does not know (or of a known `type` with an unexpected
 * shape). Every field is preserved.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UnknownEntry = Schema.Struct({
  type: Schema.String,
  uuid: opt(Schema.String),
  timestamp: opt(Schema.String)
}).annotations({ identifier: "UnknownEntry", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type UnknownEntry = typeof UnknownEntry.Type

/**
 * What {@link decodeLine} guarantees of an entry: the envelope every entry has (a string `type`;
 * `uuid` and `timestamp` strings when present), the same shape as {@link UnknownEntry}, so it is
 * assignable to `Transcript.TranscriptEntry` (whose catch-all member it is). Whether the entry also
 * matches the schema of its `type` is `Transcript.isKnown`'s question.
 *
 * @since 0.1.0
 * @category models
 */
export type EntryEnvelope = UnknownEntry

/**
 * The entry types that carry a conversation message and the chain fields.
 *
 * @since 0.1.0
 * @category constants
 */
export const CONVERSATION_ENTRY_TYPES = ["user", "assistant", "system", "attachment", "progress"] as const

/**
 * A transcript line that could not be read as an entry: `InvalidJson`, `NotAnObject`,
 * `InvalidEntry` (an object without the envelope), `TooDeep` (nested deeper than
 * `JsonDepth.MAX_DEPTH`), `TooLarge` (over a reader's line cap; not read).
 *
 * @since 0.1.0
 * @category errors
 */
export class TranscriptLineError extends Schema.TaggedError<TranscriptLineError>(
  "@acx/schema/Transcript/TranscriptLineError"
)("TranscriptLineError", {
  reason: Schema.Literal("InvalidJson", "NotAnObject", "InvalidEntry", "TooDeep", "TooLarge"),
  line: Schema.Number,
  excerpt: Schema.String,
  description: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `line ${this.line}: ${this.reason}: ${this.description} (${this.excerpt})`
  }
}

const decodeUnknownEntry = Schema.decodeUnknownEither(UnknownEntry)

// An object that is no entry: the catch-all's own issues are the short, useful explanation.
const describeInvalidEntry = (value: { readonly [key: string]: unknown }): string => {
  if (typeof value.type !== "string") return "an entry needs a string `type`"
  return orElse(
    () => Either.match(decodeUnknownEntry(value), { onLeft: formatIssues, onRight: () => "not an entry" }),
    () => "`uuid` and `timestamp` must be strings"
  )
}

// Why a value is not an object, for `NotAnObject`.
const notAnObject = (value: unknown): string =>
  `expected a JSON object, got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`

const lineError = (text: string, lineNumber: number, reason: TranscriptLineError["reason"], description: string) =>
  Either.left(new TranscriptLineError({ reason, line: lineNumber, excerpt: excerpt(text), description }))

/**
 * Reads one line of a transcript without throwing: the entry, or why the line is not one
 * (`InvalidJson`, `NotAnObject`, `InvalidEntry` for an object that is no entry, e.g. one
 * without a string `type`, or `TooDeep` for JSON nested deeper than `JsonDepth.MAX_DEPTH`).
 * `lineNumber` is reported in the error (1-based by convention).
 *
 * The check is shallow, and accepts and rejects exactly the lines a full decode with
 * `Transcript.TranscriptEntry` does: only the envelope every entry needs (a string `type`, and `uuid`
 * and `timestamp` strings when present) is checked, and the entry is the parsed JSON object
 * itself, with every field in its original order (where the full decode throws, on a
 * discriminator that cannot be converted to a string, this still answers). Nested payloads (`message` and its content
 * blocks, `toolUseResult`, `data`, `snapshot`, …) are not validated here: an entry of a known
 * `type` with an unexpected shape is an entry all the same (as it was before, where it fell into
 * {@link UnknownEntry}); `Transcript.isKnown` tells the two apart, and `Transcript.decodeLineStrict`
 * rejects it.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeLine = (text: string, lineNumber: number): Either.Either<EntryEnvelope, TranscriptLineError> => {
  const read = TranscriptEnvelope.readLine(text)
  switch (read._tag) {
    case "Entry":
      return Either.right(read.entry as EntryEnvelope)
    case "TooDeep":
      return lineError(text, lineNumber, "TooDeep", tooDeepDescription())
    case "InvalidJson":
      return lineError(text, lineNumber, "InvalidJson", read.message)
    case "NotAnObject":
      return lineError(text, lineNumber, "NotAnObject", notAnObject(read.value))
    case "InvalidEntry":
      return lineError(text, lineNumber, "InvalidEntry", describeInvalidEntry(read.value))
  }
}

/**
 * Checks an already parsed value as {@link decodeLine} checks a line (a value from a session
 * store, which keeps entries, not lines): the entry, or why the value is not one (`NotAnObject`,
 * `InvalidEntry`). `position` is reported as the error's line (1-based by convention).
 *
 * @since 0.3.0
 * @category decoding
 */
export const decodeValue = (value: unknown, position: number): Either.Either<EntryEnvelope, TranscriptLineError> => {
  if (!isObject(value)) {
    return lineError(JSON.stringify(value) ?? String(value), position, "NotAnObject", notAnObject(value))
  }
  return TranscriptEnvelope.isEntryEnvelope(value)
    ? Either.right(value as EntryEnvelope)
    : lineError(JSON.stringify(value), position, "InvalidEntry", describeInvalidEntry(value))
}
