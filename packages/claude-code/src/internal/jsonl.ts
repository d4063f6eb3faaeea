import { exceedsDepth } from "@acx/schema/JsonDepth"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as Effect from "effect/Effect"
import type * as TranscriptReader from "../TranscriptReader.js"
import { foldLines } from "./transcriptFile.js"

/**
 * The store entry of one JSON Lines line, as the SDK's importer reads it: a line that parses to
 * an object with a string `type`; `undefined` for blank lines and (counted in `skipped.lines`,
 * when given) torn, foreign or unparseable ones, and JSON nested deeper than
 * `JsonDepth.MAX_DEPTH` (nothing downstream could store it).
 *
 * @internal
 */
export const entryOfLine = (
  line: string,
  skipped?: { lines: number }
): SessionStore.SessionStoreEntry | undefined => {
  if (line.trim() === "") return undefined
  if (exceedsDepth(line)) {
    if (skipped !== undefined) skipped.lines++
    return undefined
  }
  try {
    const value: unknown = JSON.parse(line)
    if (
      typeof value === "object" && value !== null && !Array.isArray(value) &&
      typeof (value as { readonly type?: unknown }).type === "string"
    ) return value as SessionStore.SessionStoreEntry
  } catch {
    // counted below
  }
  if (skipped !== undefined) skipped.lines++
  return undefined
}

/**
 * The store entries of a JSON Lines file, read by `TranscriptReader` (regular files only, any
 * size), and whether it ended with a newline.
 *
 * @internal
 */
export const readEntryLines = (
  file: string,
  skipped?: { lines: number }
): Effect.Effect<
  { readonly entries: Array<SessionStore.SessionStoreEntry>; readonly endsWithNewline: boolean },
  TranscriptReader.TranscriptReaderError
> => {
  const entries: Array<SessionStore.SessionStoreEntry> = []
  return Effect.map(
    foldLines(file, (line) => {
      if (line.tooLarge) {
        if (skipped !== undefined) skipped.lines++
        return
      }
      const entry = entryOfLine(line.text, skipped)
      if (entry !== undefined) entries.push(entry)
    }),
    (end) => ({ entries, endsWithNewline: end.endsWithNewline })
  )
}
