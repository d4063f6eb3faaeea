/**
 * The line rules of every transcript read, in one place and free of Effect (the statistics
 * worker splits lines with it too): lines end at `\n`; a `\r` before it is not text; a line
 * over the cap is not kept; an unfinished last line is held back as `rest`. `TranscriptReader`
 * publishes the class and documents the rules.
 *
 * @internal
 */
import { isUtf8 } from "node:buffer"
import { MAX_LINE_BYTES } from "./regularFile.js"

const NEWLINE = 0x0a
const RETURN = 0x0d
const EMPTY = Buffer.alloc(0)

/**
 * One line of a transcript, decoded.
 *
 * @internal
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
 * One line of a transcript, not decoded: its text is `bytes[from, to)` (without its `\n` and a
 * `\r` before it). `bytes` may be the caller's chunk: read it during the call, never keep it.
 *
 * @internal
 */
export interface RawLine {
  readonly bytes: Buffer
  readonly from: number
  readonly to: number
  readonly start: number
  readonly end: number
  /** Longer than the cap: not kept, no bytes. */
  readonly tooLarge: boolean
}

const asBuffer = (bytes: Uint8Array): Buffer =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)

/**
 * Decodes a raw line by the UTF-8 rule: bad bytes become U+FFFD and the line is flagged.
 *
 * @internal
 */
export const decodeRaw = (raw: RawLine): Line => {
  if (raw.tooLarge) return { text: "", start: raw.start, end: raw.end, invalidUtf8: false, tooLarge: true }
  const view = raw.bytes.subarray(raw.from, raw.to)
  return { text: view.toString("utf8"), start: raw.start, end: raw.end, invalidUtf8: !isUtf8(view), tooLarge: false }
}

/**
 * Decodes one line's bytes by the UTF-8 and CR rules.
 *
 * @internal
 */
export const decodeLine = (bytes: Uint8Array): { readonly text: string; readonly invalidUtf8: boolean } => {
  const end = bytes.length > 0 && bytes[bytes.length - 1] === RETURN ? bytes.length - 1 : bytes.length
  const view = asBuffer(bytes).subarray(0, end)
  return { text: view.toString("utf8"), invalidUtf8: !isUtf8(view) }
}

/**
 * The parts as one array (the part itself when there is one).
 *
 * @internal
 */
export const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array =>
  parts.length === 1 ? parts[0]! : Buffer.concat(parts)

/**
 * Splits consecutive chunks of a file, starting at byte `start`, into lines.
 *
 * @internal
 */
export class LineSplitter {
  private carry: Array<Buffer> = []
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

  /** Hands every line `chunk` completes (with what earlier chunks left) to `onLine`, decoded. */
  feed(chunk: Uint8Array, onLine: (line: Line) => void): void {
    this.feedRaw(chunk, (raw) => onLine(decodeRaw(raw)))
  }

  /**
   * Hands every line `chunk` completes to `onLine` undecoded (the caller may skip decoding what
   * it does not read). The bytes after the last `\n` are copied: the caller may reuse `chunk`.
   */
  feedRaw(chunk: Uint8Array, onLine: (line: RawLine) => void): void {
    const bytes = asBuffer(chunk)
    let from = 0
    for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, from)) {
      const end = this.position + at + 1
      onLine(this.finish(bytes, from, at, end))
      this.lineStart = end
      from = at + 1
    }
    this.keep(bytes.subarray(from))
    this.position += bytes.length
  }

  /** The bytes after the last `\n` (a last line without one), if any, decoded. */
  rest(): Line | undefined {
    const raw = this.restRaw()
    return raw === undefined ? undefined : decodeRaw(raw)
  }

  /** The bytes after the last `\n` (a last line without one), if any. */
  restRaw(): RawLine | undefined {
    if (this.carrySize === 0 && this.dropped === 0) return undefined
    return this.finish(EMPTY, 0, 0, this.position)
  }

  private finish(chunk: Buffer, from: number, to: number, end: number): RawLine {
    const start = this.lineStart
    const size = this.dropped + this.carrySize + (to - from)
    let line: RawLine
    if (this.dropped > 0 || size > this.cap) {
      line = { bytes: EMPTY, from: 0, to: 0, start, end, tooLarge: true }
    } else {
      const whole = this.carry.length === 0
      const bytes = whole ? chunk : Buffer.concat([...this.carry, chunk.subarray(from, to)])
      const lo = whole ? from : 0
      const hi = whole ? to : bytes.length
      line = { bytes, from: lo, to: hi > lo && bytes[hi - 1] === RETURN ? hi - 1 : hi, start, end, tooLarge: false }
    }
    this.carry = []
    this.carrySize = 0
    this.dropped = 0
    return line
  }

  private keep(piece: Buffer): void {
    if (piece.length === 0) return
    if (this.dropped > 0 || this.carrySize + piece.length > this.cap) {
      this.dropped += this.carrySize + piece.length
      this.carry = []
      this.carrySize = 0
    } else {
      // copied: the caller may reuse the chunk's buffer
      this.carry.push(Buffer.from(piece))
      this.carrySize += piece.length
    }
  }
}
