/**
 * Lenient, total parsing of a transcript's JSONL text: every non-blank line goes through
 * `TranscriptLine.decodeLine`; a malformed line is reported with its line number and never stops
 * the parse. The incremental parser gives exactly the same result however the text is chunked.
 *
 * @since 0.1.0
 */
import type * as Transcript from "@acx/schema/Transcript"
import * as TranscriptLine from "@acx/schema/TranscriptLine"
import * as Either from "effect/Either"

/**
 * A decoded entry and its 1-based line number.
 *
 * @since 0.1.0
 * @category models
 */
export interface ParsedLine {
  readonly line: number
  readonly entry: Transcript.TranscriptEntry
}

/**
 * The result of a parse: the entries in file order, the lines that are not entries, and whether
 * the text ended in a torn line (a last line without a trailing newline that is not valid JSON,
 * as left by a writer that was interrupted; it is also among `errors`).
 *
 * @since 0.1.0
 * @category models
 */
export interface ParseResult {
  readonly entries: Array<ParsedLine>
  readonly errors: Array<TranscriptLine.TranscriptLineError>
  readonly torn: boolean
}

/**
 * The state of the incremental parser: the text after the last newline seen, and how many
 * lines were completed.
 *
 * @since 0.1.0
 * @category models
 */
export interface ParserState {
  readonly pending: string
  readonly lines: number
}

/**
 * The state before any chunk.
 *
 * @since 0.1.0
 * @category incremental
 */
export const initialParser: ParserState = { pending: "", lines: 0 }

/**
 * What one {@link feed} produced: the next state, and the entries and errors of the lines the
 * chunk completed.
 *
 * @since 0.1.0
 * @category models
 */
export interface FeedResult {
  readonly state: ParserState
  readonly entries: Array<ParsedLine>
  readonly errors: Array<TranscriptLine.TranscriptLineError>
}

// A transcript line starts with `{`: only other lines pay for the full whitespace test.
const isBlank = (text: string): boolean => text.charCodeAt(0) !== 123 && text.trim() === ""

// The line `[start, end)` of `text`, without the `\r` of a `\r\n` ending.
const lineAt = (text: string, start: number, end: number): string =>
  text.slice(start, end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end)

const decodeInto = (
  text: string,
  line: number,
  entries: Array<ParsedLine>,
  errors: Array<TranscriptLine.TranscriptLineError>
): Either.Either<Transcript.TranscriptEntry, TranscriptLine.TranscriptLineError> | undefined => {
  if (isBlank(text)) return undefined
  const result = TranscriptLine.decodeLine(text, line)
  if (Either.isRight(result)) {
    // Not an object literal `{ line, entry }`: V8 moves the objects of a literal whose objects
    // mostly survive straight to the old generation ("pretenuring"), and dead ParsedLines there
    // then keep their entries alive through every young collection until a full one runs (the
    // parse benchmark spent 4 ms of every 10 in GC). An empty literal has no such feedback.
    const parsed = {} as { line: number; entry: Transcript.TranscriptEntry }
    parsed.line = line
    parsed.entry = result.right
    entries.push(parsed)
  } else errors.push(result.left)
  return result
}

/**
 * The line splitting under {@link feed}, for readers of raw lines: appends `chunk` to the
 * unfinished line `pending`, hands every line it completes to `onLine` (without its `\n`, and
 * without the `\r` of a `\r\n`), and returns the new unfinished line. Only the new chunk is
 * searched for the first newline, so a line spanning many chunks is not rescanned (nor
 * flattened) on every chunk.
 *
 * @since 0.1.0
 * @category incremental
 */
export const splitLines = (pending: string, chunk: string, onLine: (line: string) => void): string => {
  const first = chunk.indexOf("\n")
  if (first === -1) return pending + chunk
  const text = pending === "" ? chunk : pending + chunk
  let start = 0
  // Walks the newlines instead of splitting: no array of every line of a large transcript.
  for (let end = pending.length + first; end !== -1; end = text.indexOf("\n", start)) {
    onLine(lineAt(text, start, end))
    start = end + 1
  }
  return text.slice(start)
}

/**
 * Feeds a chunk of text: every line the chunk completes (up to its last `\n`) is decoded; the
 * rest waits for the next chunk or {@link finish}. A line may span any number of chunks; a
 * `\r` before the `\n` is dropped.
 *
 * @since 0.1.0
 * @category incremental
 */
export const feed = (state: ParserState, chunk: string): FeedResult => {
  const entries: Array<ParsedLine> = []
  const errors: Array<TranscriptLine.TranscriptLineError> = []
  // splitLines' walk, inlined: a callback per line cost about a tenth of the parse throughput.
  const first = chunk.indexOf("\n")
  if (first === -1) return { state: { pending: state.pending + chunk, lines: state.lines }, entries, errors }
  const text = state.pending === "" ? chunk : state.pending + chunk
  let lines = state.lines
  let start = 0
  for (let end = state.pending.length + first; end !== -1; end = text.indexOf("\n", start)) {
    lines++
    decodeInto(lineAt(text, start, end), lines, entries, errors)
    start = end + 1
  }
  return { state: { pending: text.slice(start), lines }, entries, errors }
}

/**
 * Ends a parse: decodes the last line if the text did not end with a newline. If that line is
 * not valid JSON it is reported as torn (its error's description says so).
 *
 * @since 0.1.0
 * @category incremental
 */
export const finish = (state: ParserState): ParseResult => {
  const entries: Array<ParsedLine> = []
  const errors: Array<TranscriptLine.TranscriptLineError> = []
  const text = lineAt(state.pending, 0, state.pending.length)
  const result = decodeInto(text, state.lines + 1, entries, errors)
  if (result === undefined || Either.isRight(result) || result.left.reason !== "InvalidJson") {
    return { entries, errors, torn: false }
  }
  const torn = new TranscriptLine.TranscriptLineError({
    reason: result.left.reason,
    line: result.left.line,
    excerpt: result.left.excerpt,
    description: `torn last line (no trailing newline): ${result.left.description}`
  })
  return { entries, errors: [torn], torn: true }
}

/**
 * Parses a whole transcript. Blank lines are skipped; line numbers are 1-based and count every
 * line, blank or not.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseTranscript = (text: string): ParseResult => {
  const fed = feed(initialParser, text)
  const last = finish(fed.state)
  // `finish` gives at most one line: appended in place rather than copying every entry.
  for (const entry of last.entries) fed.entries.push(entry)
  for (const error of last.errors) fed.errors.push(error)
  return { entries: fed.entries, errors: fed.errors, torn: last.torn }
}
