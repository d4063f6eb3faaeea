/**
 * Splits bytes into lines and knows where each ends in the file, which a text stream cannot
 * tell: the import ledger records byte offsets. Each line is decoded as strict UTF-8; a line that
 * is not valid UTF-8 is decoded with U+FFFD in place of the bad bytes and flagged, so the caller
 * can say where (JSON holds only Unicode: the bytes themselves cannot be kept).
 *
 * @internal
 */

const NEWLINE = 0x0a
const strict = new TextDecoder("utf-8", { fatal: true })
const lenient = new TextDecoder("utf-8")

/** @internal */
export interface ByteLine {
  /** Without its `\n` (and a trailing `\r`). */
  readonly text: string
  /** Offset of the line's first byte in the file. */
  readonly start: number
  /** Offset just past the line's `\n`. */
  readonly end: number
  /** The bytes were not valid UTF-8 (`text` has U+FFFD in their place). */
  readonly invalidUtf8: boolean
}

const decode = (bytes: Uint8Array): { readonly text: string; readonly invalidUtf8: boolean } => {
  let end = bytes.length
  if (end > 0 && bytes[end - 1] === 0x0d) end--
  const view = end === bytes.length ? bytes : bytes.subarray(0, end)
  try {
    return { text: strict.decode(view), invalidUtf8: false }
  } catch {
    return { text: lenient.decode(view), invalidUtf8: true }
  }
}

/**
 * A splitter fed consecutive chunks of a file starting at byte `start`.
 *
 * @internal
 */
export class ByteLineSplitter {
  private carry: Array<Uint8Array> = []
  private carryStart: number
  private position: number

  constructor(start: number) {
    this.carryStart = start
    this.position = start
  }

  /** Hands every complete line of `chunk` (with what earlier chunks left over) to `onLine`. */
  feed(chunk: Uint8Array, onLine: (line: ByteLine) => void): void {
    let from = 0
    for (;;) {
      const at = chunk.indexOf(NEWLINE, from)
      if (at === -1) break
      let bytes = chunk.subarray(from, at)
      let start = this.position + from
      if (this.carry.length > 0) {
        bytes = concat([...this.carry, bytes])
        start = this.carryStart
        this.carry = []
      }
      const decoded = decode(bytes)
      onLine({ text: decoded.text, start, end: this.position + at + 1, invalidUtf8: decoded.invalidUtf8 })
      from = at + 1
    }
    if (from < chunk.length) {
      if (this.carry.length === 0) this.carryStart = this.position + from
      // copied: the caller may reuse the chunk's buffer
      this.carry.push(chunk.slice(from))
    }
    this.position += chunk.length
  }

  /** The bytes after the last `\n` (a last line without one), if any. */
  rest(): (ByteLine & { readonly bytes: number }) | undefined {
    if (this.carry.length === 0) return undefined
    const bytes = concat(this.carry)
    const decoded = decode(bytes)
    return {
      text: decoded.text,
      start: this.carryStart,
      end: this.carryStart + bytes.length,
      invalidUtf8: decoded.invalidUtf8,
      bytes: bytes.length
    }
  }
}

/**
 * The parts as one array (the part itself when there is one).
 *
 * @internal
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
