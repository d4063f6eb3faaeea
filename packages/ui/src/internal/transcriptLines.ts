/**
 * A transcript read as the session page reads it, through `TranscriptReader` (regular files
 * only, checked on the opened descriptor: a FIFO never holds one of libuv's file threads): from a
 * byte offset, line by line, in chunks (never the whole file at once), each line parsed on its
 * own; a line over the page's cap is not decoded (only counted), a torn last line waits for its
 * newline, a line nested deeper than `JsonDepth.MAX_DEPTH` is shown as malformed.
 */
import * as TranscriptReader from "@acx/claude-code/TranscriptReader"
import type * as SessionItem from "@acx/convert/SessionItem"
import { exceedsDepth, tooDeepDescription } from "@acx/schema/JsonDepth"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"

/** Lines over this many bytes are not parsed: the page offers them as a download. */
export const LINE_CAP = 8 * 1024 * 1024

const CHUNK = 256 * 1024

/** The lines a chunk of the file completed, and where the next unread line starts. */
export interface LinesChunk {
  readonly inputs: Array<SessionItem.Input>
  /** Byte offset after the last whole line read. */
  readonly end: number
  /** Number of the last whole line read. */
  readonly lines: number
}

/** Where to read from, and how. */
export interface ReadOptions {
  /** Byte offset of the first line to read (a line start). */
  readonly from: number
  /** Lines before `from`. */
  readonly linesBefore: number
  /** Stop at this byte offset (default: the end of the file). */
  readonly until?: number | undefined
  /** At the end, also parse a last line without a newline (the first load; live reads wait). */
  readonly includeTorn: boolean
  readonly cap?: number | undefined
}

/** One line's text as the fold's input: parsed, or malformed. */
export const parseText = (text: string, line: number): SessionItem.Input | undefined => {
  if (text.trim() === "") return undefined
  if (exceedsDepth(text)) return { line, malformed: tooDeepDescription() }
  let entry: unknown
  try {
    entry = JSON.parse(text)
  } catch (error) {
    return { line, malformed: `not JSON (${error instanceof Error ? error.message : "parse error"})` }
  }
  return { line, entry }
}

/** One line's bytes as the fold's input: parsed, or malformed. */
export const parseLine = (bytes: Uint8Array, line: number): SessionItem.Input | undefined =>
  parseText(TranscriptReader.decodeLine(bytes).text, line)

// A line's bytes without its newline.
const lineBytes = (line: TranscriptReader.Line, complete: boolean) => line.end - line.start - (complete ? 1 : 0)

/** The file's lines from `options.from`, a chunk of inputs per chunk read. */
export const readLines = (
  file: string,
  options: ReadOptions
): Stream.Stream<LinesChunk, TranscriptReader.TranscriptReaderError> =>
  Stream.unwrapScoped(Effect.map(TranscriptReader.open(file), (transcript) => {
    let number = options.linesBefore
    return TranscriptReader.lines(transcript, {
      from: options.from,
      until: options.until,
      maxLineBytes: options.cap ?? LINE_CAP,
      chunkSize: CHUNK
    }).pipe(
      Stream.map((batch): LinesChunk | undefined => {
        const inputs: Array<SessionItem.Input> = []
        for (const line of batch.lines) {
          number++
          if (line.tooLarge) inputs.push({ line: number, tooLarge: lineBytes(line, true) })
          else {
            const parsed = parseText(line.text, number)
            if (parsed !== undefined) inputs.push(parsed)
          }
        }
        const rest = batch.rest
        if (rest === undefined) {
          return batch.lines.length === 0 && inputs.length === 0
            ? undefined
            : { inputs, end: batch.end, lines: number }
        }
        if (!options.includeTorn) return undefined
        // a torn last line: shown if it parses, but `end` stays before it (a live read re-reads it)
        if (rest.tooLarge) inputs.push({ line: number + 1, tooLarge: lineBytes(rest, false) })
        else {
          const parsed = parseText(rest.text, number + 1)
          if (parsed !== undefined && "entry" in parsed) inputs.push(parsed)
        }
        return { inputs, end: batch.end, lines: number }
      }),
      Stream.filter((chunk): chunk is LinesChunk => chunk !== undefined)
    )
  }))

/** The bytes of `[start, end)` of the file, in chunks. */
export const readRange = (
  file: string,
  start: number,
  end: number
): Stream.Stream<Uint8Array, TranscriptReader.TranscriptReaderError> =>
  Stream.unwrapScoped(
    Effect.map(TranscriptReader.open(file), (transcript) =>
      TranscriptReader.chunks(transcript, { from: start, until: end }))
  )

/** The byte range `[start, end)` of line `n` (1-based, without its newline), if the file has it. */
export const locateLine = (
  file: string,
  n: number
): Effect.Effect<
  Option.Option<{ readonly start: number; readonly end: number }>,
  TranscriptReader.TranscriptReaderError
> => {
  if (!Number.isSafeInteger(n) || n < 1) return Effect.succeed(Option.none())
  // only offsets are needed: no line is kept (a cap of one byte)
  let line = 0
  let found: { readonly start: number; readonly end: number } | undefined
  return TranscriptReader.readFile(file, { maxLineBytes: 1 }).pipe(
    Stream.takeWhile(() => found === undefined),
    Stream.runForEach((batch) =>
      Effect.sync(() => {
        for (const read of batch.lines) {
          if (++line === n) {
            found = { start: read.start, end: read.end - 1 }
            return
          }
        }
        if (batch.rest !== undefined && ++line === n) found = { start: batch.rest.start, end: batch.rest.end }
      })
    ),
    Effect.map(() => Option.fromNullable(found))
  )
}
