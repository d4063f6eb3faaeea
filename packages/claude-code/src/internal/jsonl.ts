import type * as SessionStore from "@acx/session-store/SessionStore"
import type * as PlatformError from "@effect/platform/Error"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import { foldLines } from "./transcriptFile.js"

/**
 * The store entry of one JSON Lines line, as the SDK's importer reads it: a line that parses to
 * an object with a string `type`; `undefined` for blank lines and (counted in `skipped.lines`,
 * when given) torn, foreign or unparseable ones.
 *
 * @internal
 */
export const entryOfLine = (
  line: string,
  skipped?: { lines: number }
): SessionStore.SessionStoreEntry | undefined => {
  if (line.trim() === "") return undefined
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
 * The store entries of a JSON Lines file, read in chunks (files of any size; see
 * transcriptFile.ts), and whether it ended with a newline.
 *
 * @internal
 */
export const readEntryLines = (
  fs: FileSystem.FileSystem,
  file: string,
  skipped?: { lines: number }
): Effect.Effect<
  { readonly entries: Array<SessionStore.SessionStoreEntry>; readonly endsWithNewline: boolean },
  PlatformError.PlatformError
> => {
  const entries: Array<SessionStore.SessionStoreEntry> = []
  return Effect.map(
    foldLines(fs, file, (line) => {
      const entry = entryOfLine(line, skipped)
      if (entry !== undefined) entries.push(entry)
    }),
    (end) => ({ entries, endsWithNewline: end.endsWithNewline })
  )
}
