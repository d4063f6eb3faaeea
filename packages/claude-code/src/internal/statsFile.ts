/**
 * Folds a transcript file into a {@link StatsFold} from a byte offset, synchronously (it runs in
 * worker threads, one file at a time, and in the main thread for small jobs). Only lines ended by
 * `\n` are consumed: the offset returned is just past the last one, so a line being written is
 * read whole next time; a final line without `\n` comes back as `tail`. The lines are split by
 * the one splitter (`lineSplitter.ts`, `TranscriptReader.LineSplitter`: its CR and cap rules);
 * only the reads are this module's (synchronous, 4 MiB at a time). The file is opened by
 * the one safe open (`regularFile.ts`, as `TranscriptReader` opens: regular files only), and a line over its cap is counted as
 * malformed without being kept.
 *
 * @internal
 */
import type * as Pricing from "@acx/convert/Pricing"
import * as StatsFold from "@acx/convert/StatsFold"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { LineFacts } from "./lineFacts.js"
import { LineSplitter, type RawLine } from "./lineSplitter.js"
import { isRefusal, MAX_LINE_BYTES, openRegularSync } from "./regularFile.js"

const CHUNK = 4 * 1024 * 1024

// The thread's line scanner, reading into its own memory; `null` where WebAssembly cannot run
// (`node --jitless`): then every line is parsed.
let scanner: LineFacts | null | undefined
const lineScanner = (): LineFacts | null => {
  if (scanner === undefined) {
    try {
      scanner = new LineFacts(CHUNK)
    } catch {
      scanner = null
    }
  }
  return scanner
}
const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * A line's text for the fold: short lines decoded whole; in long ones, strings longer than
 * `StatsFold.LONG_STRING` bytes are left undecoded and replaced by `""` (most of a big
 * transcript's bytes are tool outputs the statistics never read; decoding them is most of the
 * cost). The bytes `"` and `\` never occur inside a multi-byte UTF-8 character, so quotes are
 * found on the bytes. A line cut inside a string is decoded whole (and fails to parse).
 *
 * @internal
 */
export const lineText = (bytes: Buffer, start: number, end: number): string => {
  if (end - start <= StatsFold.LONG_LINE) return bytes.toString("utf8", start, end)
  let out = ""
  let copied = start
  let at = start
  for (;;) {
    const open = bytes.indexOf(QUOTE, at)
    if (open === -1 || open >= end) break
    let close = open + 1
    for (;;) {
      close = bytes.indexOf(QUOTE, close)
      if (close === -1 || close >= end) return bytes.toString("utf8", start, end)
      let backslashes = 0
      while (bytes[close - 1 - backslashes] === BACKSLASH) backslashes++
      if (backslashes % 2 === 0) break
      close++
    }
    if (close - open + 1 > StatsFold.LONG_STRING) {
      out += bytes.toString("utf8", copied, open) + "\"\""
      copied = close + 1
    }
    at = close + 1
  }
  return copied === start ? bytes.toString("utf8", start, end) : out + bytes.toString("utf8", copied, end)
}

/** What a fold job hands over and gets back (plain data: it crosses to worker threads). @internal */
export interface FoldJob {
  readonly file: string
  readonly kind: "main" | "subagent"
  /** Where to start; 0 for the whole file. */
  readonly offset: number
  /** The serialised fold of the bytes before `offset` (`null` from 0). */
  readonly state: unknown
}

/** @internal */
export interface FoldDone {
  readonly file: string
  /** The serialised fold up to `offset`. */
  readonly state: unknown
  readonly offset: number
  readonly size: number
  /** A final line without `\n`, not in `state`. */
  readonly tail: string | undefined
  /** A digest of the bytes just before `offset` (up to 64), to tell an appended file from a rewritten one. */
  readonly mark: string
  /** Why the file was not read (gone, or not a regular file): nothing was folded. */
  readonly unread?: string | undefined
  /** The byte offset of the first line this job counted as malformed, if any. */
  readonly malformedAt?: number | undefined
}

/**
 * A job's result as it crosses threads: the job's index, and its fold as JSON text
 * (`JSON.stringify` of {@link FoldDone.state}). @internal
 */
export interface FoldResult extends Omit<FoldDone, "state"> {
  readonly id: number
  readonly state: string
}

/**
 * A digest (SHA-256, hex) of the bytes of `file` in [offset − 64, offset): equal marks mean equal
 * bytes. A digest, not the bytes: the mark is kept in the cache under acx's home, and a
 * transcript's bytes may hold a secret. @internal
 */
export const markAt = (fd: number, offset: number): string => {
  const length = Math.min(64, offset)
  if (length === 0) return ""
  const buffer = Buffer.alloc(length)
  const read = fs.readSync(fd, buffer, 0, length, offset - length)
  return createHash("sha256").update(buffer.subarray(0, read)).digest("hex")
}

/**
 * Whether `file`'s bytes before `offset` still have the `mark` a cached fold kept
 * ({@link markAt}): the file was appended to since, not rewritten. `false` when it cannot be
 * opened as a regular file or read. @internal
 */
export const markStill = (file: string, offset: number, mark: string): boolean => {
  const opened = openRegularSync(file)
  if (isRefusal(opened)) return false
  try {
    return markAt(opened.fd, offset) === mark
  } catch {
    return false
  } finally {
    fs.closeSync(opened.fd)
  }
}

/**
 * The unfinished last line of `file`, the bytes in [offset, size) as a job's `tail` holds them:
 * a cached fold stops before it (the line may still be being written), so a reader that takes
 * the fold from the cache folds the tail again, as the run that wrote the cache did. `undefined`
 * when there is none, it is over the line cap (the fold already counted it), or the file cannot
 * be read now. @internal
 */
export const tailAt = (file: string, offset: number, size: number): string | undefined => {
  const length = size - offset
  if (length <= 0 || length > MAX_LINE_BYTES) return undefined
  const opened = openRegularSync(file)
  if (isRefusal(opened)) return undefined
  try {
    const buffer = Buffer.alloc(length)
    const read = fs.readSync(opened.fd, buffer, 0, length, offset)
    return buffer.subarray(0, read).toString("utf8")
  } catch {
    return undefined
  } finally {
    fs.closeSync(opened.fd)
  }
}

/**
 * Runs one job; throws Node's error when the file cannot be read. `dayOf` keys the fold's cells
 * (local days; the statusline's totals key them by 15-minute slot). A file that is gone or not a
 * regular file (swapped in since it was listed) comes back empty with `unread` saying why.
 *
 * @internal
 */
export const runFoldJob = (
  job: FoldJob,
  pricing: Pricing.PricingTable,
  dayOf: (ms: number) => string = StatsFold.localDayOf()
): FoldDone => {
  const restored = job.state === null ? undefined : StatsFold.restore(job.state)
  const fold = restored ?? StatsFold.empty()
  const ctx: StatsFold.FoldContext = { pricing, dayOf, kind: job.kind }
  const transcript = openRegularSync(job.file)
  if (isRefusal(transcript)) {
    if (transcript.reason === "Io") throw transcript.cause
    return {
      file: job.file,
      state: StatsFold.serialise(fold),
      offset: 0,
      size: 0,
      tail: undefined,
      mark: "",
      unread: transcript.description
    }
  }
  const fd = transcript.fd
  try {
    let position = restored === undefined ? 0 : job.offset
    let malformedAt: number | undefined
    // the one line splitter (TranscriptReader's): lines over the cap come as tooLarge, unread
    const splitter = new LineSplitter(position, MAX_LINE_BYTES)
    const facts = lineScanner()
    const onLine = (line: RawLine) => {
      if (line.tooLarge) {
        fold.malformed++
        malformedAt ??= line.start
      } else if (line.to > line.from) {
        // a line read whole into the scanner's memory is scanned there; one it is not sure of,
        // or one carried over from the chunk before, is parsed
        const scanned = facts !== null && facts.holds(line.bytes)
          ? facts.scan(line.bytes, line.from, line.to)
          : undefined
        if (scanned === "blank") return
        if (scanned !== undefined) return StatsFold.foldFacts(fold, scanned, ctx)
        const before = fold.malformed
        StatsFold.foldJson(fold, lineText(line.bytes, line.from, line.to), ctx)
        if (fold.malformed > before) malformedAt ??= line.start
      }
    }
    const chunk = facts?.input ?? Buffer.allocUnsafe(CHUNK)
    for (;;) {
      const read = fs.readSync(fd, chunk, 0, CHUNK, position)
      if (read === 0) break
      position += read
      splitter.feedRaw(chunk.subarray(0, read), onLine)
    }
    const consumed = splitter.end
    // a final line without `\n`: not folded (it may be being written), handed back; over the cap, dropped
    const rest = splitter.restRaw()
    const tail = rest === undefined || rest.tooLarge ? undefined : rest.bytes.toString("utf8", rest.from, rest.to)
    return {
      file: job.file,
      state: StatsFold.serialise(fold),
      offset: consumed,
      size: position,
      tail,
      mark: markAt(fd, consumed),
      malformedAt
    }
  } finally {
    fs.closeSync(fd)
  }
}
