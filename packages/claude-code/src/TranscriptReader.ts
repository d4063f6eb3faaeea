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
import * as fs from "node:fs"
import * as Splitter from "./internal/lineSplitter.js"
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
 * (a FIFO, a socket, a device, a directory); `Unreadable`, permission denied; `TooLarge`, over
 * the size {@link readText} allows; `Io`, the file system failed. Every reason but `Io` is a file
 * a reader skips with a warning and reads again next time.
 *
 * @since 0.1.0
 * @category errors
 */
export class TranscriptReaderError
  extends Schema.TaggedError<TranscriptReaderError>("@acx/claude-code/TranscriptReader/TranscriptReaderError")(
    "TranscriptReaderError",
    {
      reason: Schema.Literal("NotFound", "NotAFile", "Unreadable", "TooLarge", "Io"),
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

/**
 * One line of a transcript: its text (without its `\n` and a `\r` before it; `""` when
 * `tooLarge`), its start offset, the offset just past its `\n` (for `rest`, the end of the bytes
 * read), whether its bytes were not valid UTF-8 (`text` has U+FFFD in their place), and whether
 * it was over the cap (not kept).
 *
 * @since 0.1.0
 * @category models
 */
export type Line = Splitter.Line

/**
 * One line of a transcript, not decoded: its text is `bytes[from, to)` (the CR rule applied),
 * and `bytes` may be the caller's chunk (read it during the call only). For callers that decode
 * only what they read (`acx stats` skips the long strings of long lines).
 *
 * @since 0.1.0
 * @category models
 */
export type RawLine = Splitter.RawLine

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
export const decodeLine: (bytes: Uint8Array) => { readonly text: string; readonly invalidUtf8: boolean } =
  Splitter.decodeLine

/**
 * Splits consecutive chunks of a file, starting at byte `start`, into {@link Line}s (`feed`) or
 * {@link RawLine}s (`feedRaw`): the pure core of the reader, for callers that read the bytes
 * themselves (the statistics worker does, synchronously). Every line rule lives here.
 *
 * @since 0.1.0
 * @category splitting
 */
export const LineSplitter = Splitter.LineSplitter

/**
 * @since 0.1.0
 * @category splitting
 */
export type LineSplitter = Splitter.LineSplitter

/**
 * The parts as one array (the part itself when there is one).
 *
 * @since 0.1.0
 * @category splitting
 */
export const concat: (parts: ReadonlyArray<Uint8Array>) => Uint8Array = Splitter.concat

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
