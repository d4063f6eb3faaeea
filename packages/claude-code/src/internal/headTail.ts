/**
 * Reads a transcript's listing metadata from its first and last lines instead of the whole
 * file (see `SessionIndex`): the head is read forward until the first prompt, cwd, branch and
 * start time are found, the tail backward until the last prompt and last time are, each within
 * a budget (the line in progress when a budget runs out is still read whole). Where the two
 * meet, every line is read, so a small file is read whole. A saved state resumes over the
 * lines appended since. Plain and synchronous (node:fs reads of the open descriptor): the CLI
 * calls it without Effect, and `SessionIndex` wraps it. A failed read throws Node's error.
 *
 * @internal
 */
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as TranscriptEnvelope from "@acx/schema/TranscriptEnvelope"
import * as fs from "node:fs"
import { LineSplitter, type RawLine } from "./lineSplitter.js"
import { MAX_LINE_BYTES, type Opened } from "./regularFile.js"

/**
 * How much of a transcript is read (bytes): `window` at each end first (doubled on every further
 * read), at most `headBudget` / `tailBudget` while looking for fields, and up to `appendBudget`
 * appended bytes folded whole when a cached transcript grew.
 *
 * @internal
 */
export interface ReadLimits {
  /** Bytes of the first read at each end; later reads double it. */
  readonly window: number
  /** Bytes the head may read while looking for its fields. */
  readonly headBudget: number
  /** Bytes the tail may read while looking for its fields. */
  readonly tailBudget: number
  /** Appended bytes a resumed read folds whole (beyond it, it reads their tail only). */
  readonly appendBudget: number
}

type File = Pick<Opened, "fd">

/** @internal */
export const defaultLimits: ReadLimits = {
  window: 16 * 1024,
  headBudget: 1024 * 1024,
  tailBudget: 1024 * 1024,
  appendBudget: 8 * 1024 * 1024
}

/**
 * A file's folded metadata, and where its last complete line ends (`foldedTo`) with the bytes
 * just before it (`fingerprint`, base64), so an append can be told from a rewrite.
 *
 * @internal
 */
export interface Indexed {
  readonly state: SessionMetadata.MetadataState
  readonly foldedTo: number
  readonly fingerprint: string
}

const NL = 0x0a
const FINGERPRINT = 32

// Reads `length` bytes at `offset` (fewer at the end of the file).
const readRange = (file: File, offset: number, length: number): Buffer => {
  const buffer = Buffer.allocUnsafe(Math.max(0, length))
  let filled = 0
  while (filled < buffer.length) {
    const read = fs.readSync(file.fd, buffer, filled, buffer.length - filled, offset + filled)
    if (read === 0) return buffer.subarray(0, filled)
    filled += read
  }
  return buffer
}

// A line longer than this is never decoded (nor a window grown past it to reach its start).
const MAX_LINE = MAX_LINE_BYTES

// The entries of the lines in buf[start, end) (`start` a line start): split by the one splitter
// (TranscriptReader's CR and cap rules), the last line ending at "\n" or at `end`; lines that are
// not entries are skipped, as the full parser skips them (too deep, too large included).
const entriesOf = (buf: Buffer, start: number, end: number): Array<unknown> => {
  const out: Array<unknown> = []
  const take = (line: RawLine) => {
    if (line.tooLarge || line.to <= line.from) return
    const entry = TranscriptEnvelope.entryOf(line.bytes.toString("utf8", line.from, line.to))
    if (entry !== undefined) out.push(entry)
  }
  const splitter = new LineSplitter(start, MAX_LINE)
  splitter.feedRaw(buf.subarray(start, Math.max(start, end)), take)
  const rest = splitter.restRaw()
  if (rest !== undefined) take(rest)
  return out
}

const fingerprintAt = (file: File, foldedTo: number): string =>
  readRange(file, Math.max(0, foldedTo - FINGERPRINT), Math.min(FINGERPRINT, foldedTo)).toString("base64")

interface Head {
  readonly state: SessionMetadata.MetadataState
  /** Where the unread part starts: after the last complete line read (the file's size when read whole). */
  readonly end: number
}

const readHead = (file: File, size: number, limits: ReadLimits): Head => {
  let state = SessionMetadata.initialState
  // the bytes after the last "\n" read, as the reads that brought them: a line longer than a
  // read is joined once, when its end comes (joining it with every read was quadratic: 5 s and
  // 760 MB for a 50 MB line)
  let pending: Array<Buffer> = []
  let pendingLength = 0
  let lineStart = 0
  let pos = 0
  let chunk = limits.window
  while (pos < size) {
    const read = readRange(file, pos, Math.min(chunk, size - pos))
    if (read.length === 0) break
    pos += read.length
    // the pending bytes hold no "\n": the last one, if any, is in this read
    const lastNlInRead = read.lastIndexOf(NL)
    if (lastNlInRead === -1) {
      pending.push(read)
      pendingLength += read.length
    } else {
      const buf = pendingLength === 0 ? read : Buffer.concat([...pending, read])
      const lastNl = pendingLength + lastNlInRead
      state = SessionMetadata.foldEntries(state, entriesOf(buf, 0, lastNl))
      lineStart += lastNl + 1
      const rest = buf.subarray(lastNl + 1)
      pending = rest.length === 0 ? [] : [rest]
      pendingLength = rest.length
    }
    if (SessionMetadata.headFound(state)) return { state, end: lineStart }
    if (pos >= limits.headBudget && lastNlInRead !== -1) return { state, end: lineStart }
    // a line over the cap is not read whole: the tail takes over from its start
    if (pendingLength > MAX_LINE) return { state, end: lineStart }
    chunk = Math.min(chunk * 2, limits.headBudget)
  }
  // The whole file was read: its last line has no "\n" (torn, or complete but unterminated).
  if (pendingLength > 0) {
    const last = Buffer.concat(pending)
    state = SessionMetadata.foldEntries(state, entriesOf(last, 0, last.length))
  }
  return { state, end: size }
}

interface Tail {
  readonly state: SessionMetadata.MetadataState
  readonly foldedTo: number
}

// Folds the last lines of [from, size) (`from` is a line start) into `state`: the window grows
// backward until its lines decide the last prompt and time, or the budget is spent and it holds
// a complete line, or it reaches `from`.
const readTail = (
  file: File,
  size: number,
  from: number,
  state: SessionMetadata.MetadataState,
  limits: ReadLimits
): Tail => {
  if (from >= size) return { state, foldedTo: from }
  let start = Math.max(from, size - limits.window)
  let buf = readRange(file, start, size - start)
  let lines: Array<unknown> = []
  while (true) {
    const nl = start === from ? -1 : buf.indexOf(NL)
    const first = start === from ? 0 : nl === -1 ? -1 : nl + 1
    // at least one complete line (a "\n" at the very end starts none)
    if (first !== -1 && first < buf.length) {
      lines = entriesOf(buf, first, buf.length)
      if (start === from) break
      const found = SessionMetadata.foldEntries(SessionMetadata.initialState, lines)
      if (SessionMetadata.tailFound(found) || size - start >= limits.tailBudget) break
    } else if (start === from) break
    const next = Math.max(from, size - 2 * (size - start))
    // never more than the budget and one line over the cap in memory
    if (size - next > limits.tailBudget + MAX_LINE) break
    const more = readRange(file, next, start - next)
    buf = Buffer.concat([more, buf])
    start = next
  }
  const lastNl = buf.lastIndexOf(NL)
  const foldedTo = lastNl === -1 || start + lastNl + 1 <= from ? from : start + lastNl + 1
  return { state: SessionMetadata.foldEntries(state, lines), foldedTo }
}

/**
 * Reads an open transcript of `size` bytes from scratch.
 *
 * @internal
 */
export const readIndexed = (file: File, size: number, limits: ReadLimits = defaultLimits): Indexed => {
  const head = readHead(file, size, limits)
  const tail = readTail(file, size, head.end, head.state, limits)
  const foldedTo = head.end === size ? lastLineEnd(file, size) : tail.foldedTo
  return { state: tail.state, foldedTo, fingerprint: fingerprintAt(file, foldedTo) }
}

// After the file's last "\n" (0 when there is none), for a file read whole by the head.
const lastLineEnd = (file: File, size: number): number => {
  let end = size
  while (end > 0) {
    const start = Math.max(0, end - 4096)
    const buf = readRange(file, start, end - start)
    const nl = buf.lastIndexOf(NL)
    if (nl !== -1) return start + nl + 1
    end = start
  }
  return 0
}

/**
 * Resumes a saved read of the same file, now `size` bytes: when the bytes before `foldedTo` are
 * unchanged (the file was appended to), folds only the lines after `foldedTo` (all of them up to
 * the append budget, else their tail); `undefined` when the file was rewritten.
 *
 * @internal
 */
export const resumeIndexed = (
  file: File,
  size: number,
  saved: Indexed,
  limits: ReadLimits = defaultLimits
): Indexed | undefined => {
  if (size < saved.foldedTo || fingerprintAt(file, saved.foldedTo) !== saved.fingerprint) {
    return undefined
  }
  if (size - saved.foldedTo > limits.appendBudget) {
    const tail = readTail(file, size, saved.foldedTo, saved.state, limits)
    return { ...tail, fingerprint: fingerprintAt(file, tail.foldedTo) }
  }
  const appended = readRange(file, saved.foldedTo, size - saved.foldedTo)
  const lastNl = appended.lastIndexOf(NL)
  const foldedTo = lastNl === -1 ? saved.foldedTo : saved.foldedTo + lastNl + 1
  return {
    state: SessionMetadata.foldEntries(saved.state, entriesOf(appended, 0, appended.length)),
    foldedTo,
    fingerprint: fingerprintAt(file, foldedTo)
  }
}
