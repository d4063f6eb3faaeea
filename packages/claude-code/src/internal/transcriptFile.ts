/**
 * Reads transcript files as streams of chunks, never as one string: V8 cannot hold a string over
 * about 512 MB, and Claude Code transcripts with images get that large. Lines may span chunks;
 * multi-byte characters split across chunks are decoded whole.
 *
 * @internal
 */
import * as TranscriptParse from "@acx/convert/TranscriptParse"
import type * as Transcript from "@acx/schema/Transcript"
import type * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

const CHUNK = FileSystem.MiB(1)

/**
 * Parses the file leniently with the transcript parser, handing each entry (with its 1-based
 * line number) and each line error to the callbacks, in file order.
 *
 * @internal
 */
export const foldTranscript = (
  fs: FileSystem.FileSystem,
  file: string,
  onEntry: (entry: Transcript.TranscriptEntry, line: number) => void,
  onError: (error: Transcript.TranscriptLineError) => void
): Effect.Effect<void, PlatformError.PlatformError> =>
  fs.stream(file, { chunkSize: CHUNK }).pipe(
    Stream.decodeText(),
    Stream.runFold(TranscriptParse.initialParser, (state, chunk) => {
      const fed = TranscriptParse.feed(state, chunk)
      for (const parsed of fed.entries) onEntry(parsed.entry, parsed.line)
      for (const error of fed.errors) onError(error)
      return fed.state
    }),
    Effect.map((state) => {
      const last = TranscriptParse.finish(state)
      for (const parsed of last.entries) onEntry(parsed.entry, parsed.line)
      for (const error of last.errors) onError(error)
    })
  )

/**
 * Hands every raw line (without its `\n` and a trailing `\r`) to `onLine`, and says whether the
 * file ended with a newline (an empty file does; a non-empty last line without one is torn).
 *
 * @internal
 */
export const foldLines = (
  fs: FileSystem.FileSystem,
  file: string,
  onLine: (line: string) => void
): Effect.Effect<{ readonly endsWithNewline: boolean }, PlatformError.PlatformError> =>
  fs.stream(file, { chunkSize: CHUNK }).pipe(
    Stream.decodeText(),
    Stream.runFold("", (pending, chunk) => TranscriptParse.splitLines(pending, chunk, onLine)),
    Effect.map((pending) => {
      if (pending !== "") onLine(pending.endsWith("\r") ? pending.slice(0, -1) : pending)
      return { endsWithNewline: pending === "" }
    })
  )
