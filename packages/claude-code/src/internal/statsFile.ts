/**
 * Folds a transcript file into a {@link StatsFold} from a byte offset, synchronously (it runs in
 * worker threads, one file at a time, and in the main thread for small jobs). Only lines ended by
 * `\n` are consumed: the offset returned is just past the last one, so a line being written is
 * read whole next time; a final line without `\n` comes back as `tail`.
 *
 * @internal
 */
import type * as Pricing from "@acx/convert/Pricing"
import * as StatsFold from "@acx/convert/StatsFold"
import { createHash } from "node:crypto"
import * as fs from "node:fs"

const CHUNK = 4 * 1024 * 1024
const NEWLINE = 0x0a
const RETURN = 0x0d
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

/** Runs one job; throws Node's error when the file cannot be read. @internal */
export const runFoldJob = (job: FoldJob, pricing: Pricing.PricingTable): FoldDone => {
  const restored = job.state === null ? undefined : StatsFold.restore(job.state)
  const fold = restored ?? StatsFold.empty()
  const ctx: StatsFold.FoldContext = { pricing, dayOf: StatsFold.localDayOf(), kind: job.kind }
  const fd = fs.openSync(job.file, "r")
  try {
    let position = restored === undefined ? 0 : job.offset
    let consumed = position
    let carry: Buffer = Buffer.alloc(0)
    const chunk = Buffer.allocUnsafe(CHUNK)
    for (;;) {
      const read = fs.readSync(fd, chunk, 0, CHUNK, position)
      if (read === 0) break
      position += read
      const bytes = carry.length === 0 ? chunk.subarray(0, read) : Buffer.concat([carry, chunk.subarray(0, read)])
      const end = bytes.lastIndexOf(NEWLINE)
      if (end === -1) {
        carry = Buffer.from(bytes)
        continue
      }
      let start = 0
      while (start < end) {
        const stop = bytes.indexOf(NEWLINE, start)
        const lineEnd = bytes[stop - 1] === RETURN ? stop - 1 : stop
        if (lineEnd > start) StatsFold.foldJson(fold, lineText(bytes, start, lineEnd), ctx)
        start = stop + 1
      }
      consumed = position - (bytes.length - end - 1)
      carry = Buffer.from(bytes.subarray(end + 1))
    }
    const tail = carry.length === 0 ? undefined : carry.toString("utf8")
    return {
      file: job.file,
      state: StatsFold.serialise(fold),
      offset: consumed,
      size: position,
      tail,
      mark: markAt(fd, consumed)
    }
  } finally {
    fs.closeSync(fd)
  }
}
