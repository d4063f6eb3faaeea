/**
 * A transcript read as the session page reads it: from a byte offset, line by line, in chunks
 * (never the whole file at once), each line parsed on its own; a line over the size cap is not
 * decoded (only counted), a torn last line waits for its newline.
 */
import type * as PlatformError from "@effect/platform/Error"
import type * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type * as SessionView from "../SessionView.js"

/** Lines over this many bytes are not parsed: the page offers them as a download. */
export const LINE_CAP = 8 * 1024 * 1024

const CHUNK = 256 * 1024
const NEWLINE = 0x0a
const decoder = new TextDecoder("utf-8")

/** The lines a chunk of the file completed, and where the next unread line starts. */
export interface LinesChunk {
  readonly inputs: Array<SessionView.Input>
  /** Byte offset after the last whole line read. */
  readonly end: number
  /** Number of the last whole line read. */
  readonly lines: number
}

/** Where to read from, and how. */
export interface ReadOptions {
  /** Byte offset of the first line to read (a line start). */
  readonly from: number
  /** Lines before `from`. */
  readonly linesBefore: number
  /** Stop at this byte offset (default: the end of the file). */
  readonly until?: number | undefined
  /** At the end, also parse a last line without a newline (the first load; live reads wait). */
  readonly includeTorn: boolean
  readonly cap?: number | undefined
}

const concat = (pieces: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  if (pieces.length === 1) return pieces[0]!
  const out = new Uint8Array(size)
  let at = 0
  for (const piece of pieces) {
    out.set(piece, at)
    at += piece.length
  }
  return out
}

/** One line's bytes as the fold's input: parsed, or malformed. */
export const parseLine = (bytes: Uint8Array, line: number): SessionView.Input | undefined => {
  let text = decoder.decode(bytes)
  if (text.endsWith("\r")) text = text.slice(0, -1)
  if (text.trim() === "") return undefined
  let entry: unknown
  try {
    entry = JSON.parse(text)
  } catch (error) {
    return { line, malformed: `not JSON (${error instanceof Error ? error.message : "parse error"})` }
  }
  return { line, entry }
}

interface ReaderState {
  pieces: Array<Uint8Array>
  size: number
  // bytes of the current line, counted on once it passed the cap (its bytes are dropped)
  over: number
  line: number
  offset: number
}

/** The file's lines from `options.from`, a chunk of inputs per chunk read. */
export const readLines = (
  fs: FileSystem.FileSystem,
  file: string,
  options: ReadOptions
): Stream.Stream<LinesChunk, PlatformError.PlatformError> => {
  const cap = options.cap ?? LINE_CAP
  const state: ReaderState = { pieces: [], size: 0, over: 0, line: options.linesBefore, offset: options.from }
  const finishLine = (inputs: Array<SessionView.Input>, last: Uint8Array) => {
    state.line++
    const size = state.size + last.length
    if (state.over > 0 || size > cap) {
      inputs.push({ line: state.line, tooLarge: state.over + size })
    } else {
      const parsed = parseLine(concat([...state.pieces, last], size), state.line)
      if (parsed !== undefined) inputs.push(parsed)
    }
    state.pieces = []
    state.size = 0
    state.over = 0
  }
  const keep = (piece: Uint8Array) => {
    if (piece.length === 0) return
    if (state.over > 0 || state.size + piece.length > cap) {
      state.over += state.size + piece.length
      state.pieces = []
      state.size = 0
    } else {
      // a copy: the stream may reuse its buffer
      state.pieces.push(piece.slice())
      state.size += piece.length
    }
  }
  const onChunk = (chunk: Uint8Array): LinesChunk => {
    const inputs: Array<SessionView.Input> = []
    let start = 0
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, start)) {
      const bytes = state.over + state.size + (at - start) + 1
      finishLine(inputs, chunk.subarray(start, at))
      state.offset += bytes
      start = at + 1
    }
    keep(chunk.subarray(start))
    return { inputs, end: state.offset, lines: state.line }
  }
  const bytesToRead = options.until === undefined ? undefined : Math.max(0, options.until - options.from)
  return fs.stream(file, {
    offset: options.from,
    chunkSize: CHUNK,
    ...(bytesToRead === undefined ? {} : { bytesToRead })
  }).pipe(
    Stream.map(onChunk),
    Stream.concat(Stream.suspend(() => {
      if (!options.includeTorn || (state.size === 0 && state.over === 0)) return Stream.empty
      // a torn last line: shown if it parses, but `end` stays before it (a live read re-reads it)
      const inputs: Array<SessionView.Input> = []
      if (state.over === 0) {
        const parsed = parseLine(concat(state.pieces, state.size), state.line + 1)
        if (parsed !== undefined && "entry" in parsed) inputs.push(parsed)
      } else inputs.push({ line: state.line + 1, tooLarge: state.over })
      return Stream.make({ inputs, end: state.offset, lines: state.line })
    }))
  )
}

/** The byte range `[start, end)` of line `n` (1-based, without its newline), if the file has it. */
export const locateLine = (
  fs: FileSystem.FileSystem,
  file: string,
  n: number
): Effect.Effect<Option.Option<{ readonly start: number; readonly end: number }>, PlatformError.PlatformError> => {
  if (!Number.isSafeInteger(n) || n < 1) return Effect.succeed(Option.none())
  let line = 1
  let offset = 0
  let start: number | undefined = n === 1 ? 0 : undefined
  let end: number | undefined
  return fs.stream(file, { chunkSize: 1024 * 1024 }).pipe(
    Stream.takeWhile(() => end === undefined),
    Stream.runForEach((chunk) =>
      Effect.sync(() => {
        for (let at = chunk.indexOf(NEWLINE); at !== -1 && end === undefined; at = chunk.indexOf(NEWLINE, at + 1)) {
          if (line === n) end = offset + at
          line++
          if (line === n) start = offset + at + 1
        }
        offset += chunk.length
      })
    ),
    Effect.map(() => {
      if (start === undefined) return Option.none()
      const stop = end ?? offset
      return stop > start || end !== undefined ? Option.some({ start, end: stop }) : Option.none()
    })
  )
}
