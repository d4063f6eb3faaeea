/**
 * Serialization of transcript entries back to JSONL: one compact JSON object per line, as the
 * CLI writes them. Parsing what this writes gives back the same entries.
 *
 * @since 0.1.0
 */
import type * as Transcript from "@acx/schema/Transcript"

/**
 * One entry as one JSONL line (without the newline): `JSON.stringify`, no pretty printing.
 * Newlines inside strings are escaped by JSON, so the line never contains a raw `\n` or `\r`.
 *
 * @since 0.1.0
 * @category serialization
 */
export const serializeEntry = (entry: Transcript.TranscriptEntry): string => JSON.stringify(entry)

/**
 * A whole transcript: one line per entry, each ending with `\n` (the empty string for no
 * entries).
 *
 * @since 0.1.0
 * @category serialization
 */
export const serializeTranscript = (entries: ReadonlyArray<Transcript.TranscriptEntry>): string =>
  entries.map((entry) => `${serializeEntry(entry)}\n`).join("")
