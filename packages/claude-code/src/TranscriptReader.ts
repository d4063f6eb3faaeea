/**
 * The one reader of transcript files: every part of acx that reads a Claude Code transcript
 * (import, the listing index, show, stats, the web page) opens it and splits it into lines here.
 *
 * - **Regular files only, checked on the opened descriptor.** The file is opened with
 *   `O_NONBLOCK` (so opening a FIFO never waits for a writer) and then `fstat`ed: anything but a
 *   regular file (a FIFO, a socket, a device, a directory) fails with `NotAFile` before a byte is
 *   read. Checking the path first and opening it after would race a swap, and a blocked read of a
 *   FIFO holds one of libuv's four file threads for good.
 * - **Bytes and offsets.** A transcript is read as bytes from any offset, in chunks (V8 strings
 *   stop at about 512 MB; transcripts with images get that large). Each line carries its start
 *   and end offsets (end just past its `\n`), which the import ledger and the page's live reads
 *   resume from.
 * - **An unfinished last line is held back**: the lines handed out all ended with `\n`; bytes
 *   after the last one come back once, at the end, as `rest`, for the caller to take (a whole
 *   entry without its newline) or leave (a line being written).
 * - **One size cap**: a line longer than `maxLineBytes` (default {@link MAX_LINE_BYTES}) is not
 *   kept in memory; it is handed out as `tooLarge` with its offsets and size, and no text.
 * - **One UTF-8 and CR rule**: a `\r` just before the `\n` (or at the end of `rest`) is not part
 *   of the text; a line that is not valid UTF-8 is decoded with U+FFFD in place of the bad bytes
 *   and flagged `invalidUtf8` (JSON holds only Unicode: the bytes themselves cannot be kept).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { isUtf8 } from "node:buffer"
import * as fs from "node:fs"
import {
  checked,
  isRefusal,
  MAX_LINE_BYTES as INTERNAL_MAX_LINE_BYTES,
  OPEN_FLAGS,
  openRegularSync,
  type Refusal,
  refusalOf
} from "./internal/regularFile.js"

/**
 * Why a transcript could not be read: `NotFound`, no such file; `NotAFile`, not a regular file
 * (a FIFO, a socket, a device, a directory); `TooLarge`, over the size {@link readText} allows;
 * `Io`, the file system failed.
 *
 * @since 0.1.0
 * @category errors
 */
export class TranscriptReaderError
  extends Schema.TaggedError<TranscriptReaderError>("@acx/claude-code/TranscriptReader/TranscriptReaderError")(
    "TranscriptReaderError",
    {
      reason: Schema.Literal("NotFound", "NotAFile", "TooLarge", "Io"),
      file: Schema.String,
      description: Schema.String,
      cause: Schema.optionalWith(Schema.Defect, { exact: true })
    }
  )
{
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `${this.file}: ${this.description}`
  }
}

/**
 * The longest line kept (bytes): 256 MiB, half of the longest string V8 can build, so a line is
 * always decodable. Claude Code writes lines of tens of MB (images, large tool outputs); longer
 * ones are handed out as `tooLarge`, never buffered.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_LINE_BYTES: number = INTERNAL_MAX_LINE_BYTES

const CHUNK = 1024 * 1024
const NEWLINE = 0x0a
const RETURN = 0x0d

/**
 * One line of a transcript.
 *
 * @since 0.1.0
 * @category models
 */
export interface Line {
  /** The text, without its `\n` and a `\r` before it; `""` when `tooLarge`. */
  readonly text: string
  /** Offset of the line's first byte in the file. */
  readonly start: number
  /** Offset just past the line's `\n` (for `rest`, the end of the bytes read). */
  readonly end: number
  /** The bytes were not valid UTF-8 (`text` has U+FFFD in their place). */
  readonly invalidUtf8: boolean
  /** Longer than the cap: not kept, `text` is empty. */
  readonly tooLarge: boolean
}

/**
 * What each read of {@link lines} gives: the lines the chunk completed and where the first
 * unread line starts; the last batch also has `rest`, the bytes after the last `\n`, if any.
 *
 * @since 0.1.0
 * @category models
 */
export interface LineBatch {
  readonly lines: ReadonlyArray<Line>
  /** Just past the last complete line read so far. */
  readonly end: number
  readonly rest?: Line | undefined
}

/**
 * A transcript opened for reading: its descriptor and what `fstat` said when it was opened.
 *
 * @since 0.1.0
 * @category models
 */
export interface OpenTranscript {
  readonly file: string
  readonly fd: number
  /** Bytes, when opened. */
  readonly size: number
  /** Epoch milliseconds, when opened. */
  readonly mtimeMs: number
  /** The inode, to tell a file replaced by another of the same name. */
  readonly ino: number
}

/**
 * Where to read and how.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReadOptions {
  /** The offset of the first line (a line start); default 0. */
  readonly from?: number | undefined
  /** Stop at this offset (default: the size when opened). */
  readonly until?: number | undefined
  /** Lines longer than this many bytes come out `tooLarge`; default {@link MAX_LINE_BYTES}. */
  readonly maxLineBytes?: number | undefined
  /** Bytes per read; default 1 MiB. */
  readonly chunkSize?: number | undefined
}

const failure = (file: string, refusal: Refusal): TranscriptReaderError =>
  new TranscriptReaderError({
    reason: refusal.reason,
    file,
    description: refusal.description,
    ...(refusal.cause === undefined ? {} : { cause: refusal.cause })
  })

/**
 * Opens a transcript synchronously (for worker threads); throws a {@link TranscriptReaderError}.
 * The caller closes `fd`.
 *
 * @since 0.1.0
 * @category opening
 */
export const openSync = (file: string): OpenTranscript => {
  const result = openRegularSync(file)
  if (isRefusal(result)) throw failure(file, result)
  return { file, ...result }
}

const closeFd = (fd: number) => Effect.async<void>((resume) => fs.close(fd, () => resume(Effect.void)))

/**
 * Opens a transcript for the scope: a regular file, or a {@link TranscriptReaderError}.
 *
 * @since 0.1.0
 * @category opening
 */
export const open = (file: string): Effect.Effect<OpenTranscript, TranscriptReaderError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<number, TranscriptReaderError>((resume) =>
      fs.open(
        file,
        OPEN_FLAGS,
        (error, fd) => resume(error === null ? Effect.succeed(fd) : Effect.fail(failure(file, refusalOf(error))))
      )
    ),
    closeFd
  ).pipe(
    Effect.flatMap((fd) =>
      Effect.async<OpenTranscript, TranscriptReaderError>((resume) =>
        fs.fstat(fd, (error, stats) => {
          const result = error === null ? checked(fd, stats) : refusalOf(error)
          resume(isRefusal(result) ? Effect.fail(failure(file, result)) : Effect.succeed({ file, ...result }))
        })
      )
    )
  )

/**
 * Up to `length` bytes at `position` (fewer at the end of the file).
 *
 * @since 0.1.0
 * @category reading
 */
export const readAt = (
  transcript: OpenTranscript,
  position: number,
  length: number
): Effect.Effect<Buffer, TranscriptReaderError> =>
  Effect.async<Buffer, TranscriptReaderError>((resume) => {
    const buffer = Buffer.allocUnsafe(Math.max(0, length))
    let filled = 0
    const step = () => {
      if (filled >= buffer.length) return resume(Effect.succeed(buffer))
      fs.read(transcript.fd, buffer, filled, buffer.length - filled, position + filled, (error, read) => {
        if (error !== null) return resume(Effect.fail(failure(transcript.file, refusalOf(error))))
        if (read === 0) return resume(Effect.succeed(buffer.subarray(0, filled)))
        filled += read
        step()
      })
    }
    step()
  })

/**
 * A small file beside the transcripts (a subagent's `.meta.json`, a store's sidecar) read whole
 * as UTF-8 text, by the same rules: a regular file only, at most `maxBytes` (else `TooLarge`).
 *
 * @since 0.1.0
 * @category reading
 */
export const readText = (file: string, maxBytes: number): Effect.Effect<string, TranscriptReaderError> =>
  Effect.scoped(Effect.gen(function*() {
    const transcript = yield* open(file)
    if (transcript.size > maxBytes) {
      return yield* new TranscriptReaderError({
        reason: "TooLarge",
        file,
        description: `${transcript.size} bytes, over ${maxBytes}: not read`
      })
    }
    return (yield* readAt(transcript, 0, transcript.size)).toString("utf8")
  }))

/**
 * The bytes of `[from, until)` in chunks (`until` defaults to the size when opened).
 *
 * @since 0.1.0
 * @category reading
 */
export const chunks = (
  transcript: OpenTranscript,
  options: ReadOptions = {}
): Stream.Stream<Buffer, TranscriptReaderError> => {
  const until = options.until ?? transcript.size
  const size = Math.max(1, options.chunkSize ?? CHUNK)
  return Stream.paginateEffect(options.from ?? 0, (position) =>
    position >= until
      ? Effect.succeed([Buffer.alloc(0), Option.none()] as const)
      : Effect.map(readAt(transcript, position, Math.min(size, until - position)), (bytes) =>
        [bytes, bytes.length === 0 ? Option.none() : Option.some(position + bytes.length)] as const)).pipe(
      Stream.filter((bytes) => bytes.length > 0)
    )
}

/**
 * Decodes one line's bytes by the UTF-8 and CR rules (see the module docs).
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeLine = (bytes: Uint8Array): { readonly text: string; readonly invalidUtf8: boolean } => {
  const end = bytes.length > 0 && bytes[bytes.length - 1] === RETURN ? bytes.length - 1 : bytes.length
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, end)
  return { text: view.toString("utf8"), invalidUtf8: !isUtf8(view) }
}

/**
 * Splits consecutive chunks of a file, starting at byte `start`, into {@link Line}s: the pure
 * core of the reader, for callers that read the bytes themselves.
 *
 * @since 0.1.0
 * @category splitting
 */
export class LineSplitter {
  private carry: Array<Uint8Array> = []
  private carrySize = 0
  // bytes of the current line dropped once it passed the cap
  private dropped = 0
  private lineStart: number
  private position: number
  private readonly cap: number

  constructor(start: number, maxLineBytes: number = MAX_LINE_BYTES) {
    this.lineStart = start
    this.position = start
    this.cap = Math.max(1, maxLineBytes)
  }

  /** Just past the last complete line. */
  get end(): number {
    return this.lineStart
  }

  /** Hands every line `chunk` completes (with what earlier chunks left) to `onLine`. */
  feed(chunk: Uint8Array, onLine: (line: Line) => void): void {
    let from = 0
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
      const end = this.position + at + 1
      onLine(this.finish(chunk.subarray(from, at), end))
      this.lineStart = end
      from = at + 1
    }
    this.keep(chunk.subarray(from))
    this.position += chunk.length
  }

  /** The bytes after the last `\n` (a last line without one), if any. */
  rest(): Line | undefined {
    if (this.carrySize === 0 && this.dropped === 0) return undefined
    return this.finish(new Uint8Array(0), this.position)
  }

  private finish(last: Uint8Array, end: number): Line {
    const start = this.lineStart
    const size = this.dropped + this.carrySize + last.length
    let line: Line
    if (this.dropped > 0 || size > this.cap) {
      line = { text: "", start, end, invalidUtf8: false, tooLarge: true }
    } else {
      const decoded = decodeLine(this.carry.length === 0 ? last : concat([...this.carry, last]))
      line = { text: decoded.text, start, end, invalidUtf8: decoded.invalidUtf8, tooLarge: false }
    }
    this.carry = []
    this.carrySize = 0
    this.dropped = 0
    return line
  }

  private keep(piece: Uint8Array): void {
    if (piece.length === 0) return
    if (this.dropped > 0 || this.carrySize + piece.length > this.cap) {
      this.dropped += this.carrySize + piece.length
      this.carry = []
      this.carrySize = 0
    } else {
      // copied: the caller may reuse the chunk's buffer
      this.carry.push(piece.slice())
      this.carrySize += piece.length
    }
  }
}

/**
 * The parts as one array (the part itself when there is one).
 *
 * @since 0.1.0
 * @category splitting
 */
export const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  if (parts.length === 1) return parts[0]!
  let size = 0
  for (const part of parts) size += part.length
  const out = new Uint8Array(size)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

/**
 * The lines of `[from, until)`, a batch per chunk read; the last batch holds `rest`.
 *
 * @since 0.1.0
 * @category reading
 */
export const lines = (
  transcript: OpenTranscript,
  options: ReadOptions = {}
): Stream.Stream<LineBatch, TranscriptReaderError> =>
  Stream.suspend(() => {
    const splitter = new LineSplitter(options.from ?? 0, options.maxLineBytes)
    return chunks(transcript, options).pipe(
      Stream.map((chunk): LineBatch => {
        const out: Array<Line> = []
        splitter.feed(chunk, (line) => out.push(line))
        return { lines: out, end: splitter.end }
      }),
      Stream.concat(Stream.sync((): LineBatch => ({ lines: [], end: splitter.end, rest: splitter.rest() })))
    )
  })

/**
 * Opens `file` and reads its lines (see {@link lines}).
 *
 * @since 0.1.0
 * @category reading
 */
export const readFile = (
  file: string,
  options: ReadOptions = {}
): Stream.Stream<LineBatch, TranscriptReaderError> =>
  Stream.unwrapScoped(Effect.map(open(file), (transcript) => lines(transcript, options)))
