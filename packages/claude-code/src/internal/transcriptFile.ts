/**
 * Transcript files as entries or raw lines, read by `TranscriptReader` (regular files only, in
 * chunks, lines capped, one UTF-8 and CR rule) and parsed line by line with the transcript
 * parser's rules.
 *
 * @internal
 */
import * as TranscriptParse from "@acx/convert/TranscriptParse"
import type * as Transcript from "@acx/schema/Transcript"
import * as TranscriptLine from "@acx/schema/TranscriptLine"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import * as TranscriptReader from "../TranscriptReader.js"

/** @internal */
export interface TranscriptSink {
  readonly onEntry: (entry: Transcript.TranscriptEntry, line: number) => void
  /** A line that is not an entry, and the byte offset where it starts. */
  readonly onError: (error: TranscriptLine.TranscriptLineError, offset: number) => void
  /** An entry's line that was not valid UTF-8 (read with U+FFFD in place of the bad bytes). */
  readonly onInvalidUtf8?: ((line: number) => void) | undefined
}

const tooLarge = (line: TranscriptReader.Line, number: number) =>
  new TranscriptLine.TranscriptLineError({
    reason: "TooLarge",
    line: number,
    excerpt: "",
    description: `${line.end - line.start} bytes, over the ${TranscriptReader.MAX_LINE_BYTES}-byte line cap`
  })

/**
 * A parser of consecutive lines from the start of a file: each line read is handed to the sink
 * as an entry (with its 1-based line number, blank lines counted) or an error (with its byte
 * offset). `last` marks the line without `\n` at the end: when it is not JSON it is torn.
 *
 * @internal
 */
export const lineParser = (sink: TranscriptSink) => {
  let number = 0
  return (line: TranscriptReader.Line, last: boolean): void => {
    number++
    if (line.tooLarge) return sink.onError(tooLarge(line, number), line.start)
    let entry: Transcript.TranscriptEntry | undefined
    if (last) {
      // the parser's rule for a last line without `\n`: torn when it is not JSON
      const parsed = TranscriptParse.finish({ pending: line.text, lines: number - 1 })
      entry = parsed.entries[0]?.entry
      for (const error of parsed.errors) sink.onError(error, line.start)
    } else if (line.text.trim() !== "") {
      const decoded = TranscriptLine.decodeLine(line.text, number)
      if (Either.isRight(decoded)) entry = decoded.right
      else sink.onError(decoded.left, line.start)
    }
    if (entry === undefined) return
    if (line.invalidUtf8) sink.onInvalidUtf8?.(number)
    sink.onEntry(entry, number)
  }
}

/**
 * Reads the file and hands each entry and each line that is not one to the sink, in file order
 * (see {@link lineParser}).
 *
 * @internal
 */
export const foldTranscript = (
  file: string,
  sink: TranscriptSink
): Effect.Effect<void, TranscriptReader.TranscriptReaderError> => {
  const take = lineParser(sink)
  return TranscriptReader.readFile(file).pipe(
    Stream.runForEach((batch) =>
      Effect.sync(() => {
        for (const line of batch.lines) take(line, false)
        if (batch.rest !== undefined) take(batch.rest, true)
      })
    )
  )
}

/**
 * Hands every line to `onLine` (its text without `\n` and a `\r` before it; a line over the cap
 * comes `tooLarge`, without text), and says whether the file ended with a newline (an empty
 * file does; a non-empty last line without one is torn).
 *
 * @internal
 */
export const foldLines = (
  file: string,
  onLine: (line: TranscriptReader.Line) => void
): Effect.Effect<{ readonly endsWithNewline: boolean }, TranscriptReader.TranscriptReaderError> => {
  let endsWithNewline = true
  return TranscriptReader.readFile(file).pipe(
    Stream.runForEach((batch) =>
      Effect.sync(() => {
        for (const line of batch.lines) onLine(line)
        if (batch.rest !== undefined) {
          endsWithNewline = false
          onLine(batch.rest)
        }
      })
    ),
    Effect.map(() => ({ endsWithNewline }))
  )
}
