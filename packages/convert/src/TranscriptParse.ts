/**
 * Lenient, total parsing of a transcript's JSONL text: every non-blank line goes through
 * `Transcript.decodeLine`; a malformed line is reported with its line number and never stops
 * the parse. The incremental parser gives exactly the same result however the text is chunked.
 *
 * @since 0.1.0
 */
import * as Transcript from "@acx/schema/Transcript"
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
  readonly errors: Array<Transcript.TranscriptLineError>
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
  readonly errors: Array<Transcript.TranscriptLineError>
}

const isBlank = (text: string): boolean => text.trim() === ""

const stripCr = (text: string): string => text.endsWith("\r") ? text.slice(0, -1) : text

const decodeInto = (
  text: string,
  line: number,
  entries: Array<ParsedLine>,
  errors: Array<Transcript.TranscriptLineError>
): Either.Either<Transcript.TranscriptEntry, Transcript.TranscriptLineError> | undefined => {
  if (isBlank(text)) return undefined
  const result = Transcript.decodeLine(text, line)
  if (Either.isRight(result)) entries.push({ line, entry: result.right })
  else errors.push(result.left)
  return result
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
  const errors: Array<Transcript.TranscriptLineError> = []
  const parts = (state.pending + chunk).split("\n")
  const pending = parts.pop() ?? ""
  let lines = state.lines
  for (const part of parts) {
    lines++
    decodeInto(stripCr(part), lines, entries, errors)
  }
  return { state: { pending, lines }, entries, errors }
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
  const errors: Array<Transcript.TranscriptLineError> = []
  const text = stripCr(state.pending)
  const result = decodeInto(text, state.lines + 1, entries, errors)
  if (result === undefined || Either.isRight(result) || result.left.reason !== "InvalidJson") {
    return { entries, errors, torn: false }
  }
  const torn = new Transcript.TranscriptLineError({
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
  return {
    entries: [...fed.entries, ...last.entries],
    errors: [...fed.errors, ...last.errors],
    torn: last.torn
  }
}
