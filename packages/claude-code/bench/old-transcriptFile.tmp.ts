/**
 * Reads transcript files as streams of chunks, never as one string: V8 cannot hold a string over
 * about 512 MB, and Claude Code transcripts with images get that large. Lines may span chunks;
 * multi-byte characters split across chunks are decoded whole, and lines that are not valid
 * UTF-8 are told apart.
 *
 * @internal
 */
import * as TranscriptParse from "@acx/convert/TranscriptParse"
import type * as Transcript from "@acx/schema/Transcript"
import type * as PlatformError from "@effect/platform/Error"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { isUtf8 } from "node:buffer"
import { concat } from "./oldByteLines.tmp.js"

const CHUNK = FileSystem.MiB(1)

const NEWLINE = 0x0a
const lenient = new TextDecoder("utf-8")
const strict = new TextDecoder("utf-8", { fatal: true })

/**
 * Decodes line-aligned bytes (whole lines, `\n` included), telling which lines were not valid
 * UTF-8 (1-based, counted from `firstLine`): those are decoded with U+FFFD in place of the bad
 * bytes. The fast path checks the whole region at once.
 */
const decodeLines = (region: Uint8Array, firstLine: number, onInvalidUtf8: (line: number) => void): string => {
  if (isUtf8(region)) return lenient.decode(region)
  const parts: Array<string> = []
  let from = 0
  let line = firstLine
  while (from < region.length) {
    let at = region.indexOf(NEWLINE, from)
    if (at === -1) at = region.length
    const bytes = region.subarray(from, at)
    try {
      parts.push(strict.decode(bytes))
    } catch {
      onInvalidUtf8(line)
      parts.push(lenient.decode(bytes))
    }
    from = at + 1
    line++
  }
  const text = parts.join("\n")
  return region[region.length - 1] === NEWLINE ? `${text}\n` : text
}

/**
 * Parses the file leniently with the transcript parser, handing each entry (with its 1-based
 * line number) and each line error to the callbacks, in file order. A line that is not valid
 * UTF-8 is parsed with U+FFFD in place of the bad bytes and its number handed to
 * `onInvalidUtf8` (JSON holds only Unicode text: the bytes themselves cannot be kept).
 *
 * @internal
 */
export const foldTranscript = (
  fs: FileSystem.FileSystem,
  file: string,
  onEntry: (entry: Transcript.TranscriptEntry, line: number) => void,
  onError: (error: Transcript.TranscriptLineError) => void,
  onInvalidUtf8: (line: number) => void = () => {}
): Effect.Effect<void, PlatformError.PlatformError> => {
  const feed = (state: TranscriptParse.ParserState, text: string) => {
    const fed = TranscriptParse.feed(state, text)
    for (const parsed of fed.entries) onEntry(parsed.entry, parsed.line)
    for (const error of fed.errors) onError(error)
    return fed.state
  }
  // Bytes after the last newline wait for the next chunk (kept as pieces: a line of tens of MB
  // is joined once, when its newline arrives), so decoding always sees whole lines.
  let carry: Array<Uint8Array> = []
  return fs.stream(file, { chunkSize: CHUNK }).pipe(
    Stream.runFold(TranscriptParse.initialParser, (state, chunk) => {
      const cut = chunk.lastIndexOf(NEWLINE) + 1
      if (cut === 0) {
        carry.push(chunk)
        return state
      }
      const region = carry.length === 0 ? chunk.subarray(0, cut) : concat([...carry, chunk.subarray(0, cut)])
      carry = cut < chunk.length ? [chunk.slice(cut)] : []
      return feed(state, decodeLines(region, state.lines + 1, onInvalidUtf8))
    }),
    Effect.map((state) => {
      const rest = carry.length === 0 ? state : feed(state, decodeLines(concat(carry), state.lines + 1, onInvalidUtf8))
      carry = []
      const last = TranscriptParse.finish(rest)
      for (const parsed of last.entries) onEntry(parsed.entry, parsed.line)
      for (const error of last.errors) onError(error)
    })
  )
}

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
