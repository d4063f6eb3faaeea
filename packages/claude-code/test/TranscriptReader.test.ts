/**
 * `TranscriptReader`, the one reader of transcripts: however a file's bytes are cut into chunks,
 * the lines, their offsets, the held-back last line, the cap, the UTF-8 and the CR rules come out
 * the same (a property over generated hostile bytes); only regular files are opened, and a FIFO
 * is refused at once (never waited on) with a typed reason; `JsonDepth` tells deep JSON without
 * recursion, and a line nested 20 000 deep is skipped by every parse, never thrown.
 */
import * as TranscriptReader from "@acx/claude-code/TranscriptReader"
import { parseTranscript } from "@acx/convert/TranscriptParse"
import * as JsonDepth from "@acx/schema/JsonDepth"
import * as TranscriptLine from "@acx/schema/TranscriptLine"
import { FastCheck as fc } from "effect"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { isUtf8 } from "node:buffer"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

let root = ""
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-reader-"))
})
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const NL = 0x0a

// The lines of `bytes` as the module docs define them, computed the obvious way (whole buffer).
const expectedLines = (bytes: Buffer, cap: number) => {
  const out: Array<TranscriptReader.Line> = []
  let start = 0
  for (let at = bytes.indexOf(NL); at !== -1; at = bytes.indexOf(NL, start)) {
    out.push(lineOf(bytes.subarray(start, at), start, at + 1, cap))
    start = at + 1
  }
  const rest = start < bytes.length ? lineOf(bytes.subarray(start), start, bytes.length, cap) : undefined
  return { lines: out, rest }
}

const lineOf = (bytes: Buffer, start: number, end: number, cap: number): TranscriptReader.Line => {
  if (bytes.length > cap) return { text: "", start, end, invalidUtf8: false, tooLarge: true }
  const body = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, -1) : bytes
  const strict = (() => {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(body)
    } catch {
      return undefined
    }
  })()
  return {
    text: strict ?? new TextDecoder("utf-8").decode(body),
    start,
    end,
    invalidUtf8: strict === undefined,
    tooLarge: false
  }
}

const split = (bytes: Buffer, cuts: ReadonlyArray<number>, cap: number) => {
  const splitter = new TranscriptReader.LineSplitter(0, cap)
  const lines: Array<TranscriptReader.Line> = []
  let from = 0
  for (const cut of [...cuts].sort((a, b) => a - b).filter((cut) => cut <= bytes.length)) {
    splitter.feed(bytes.subarray(from, cut), (line) => lines.push(line))
    from = cut
  }
  splitter.feed(bytes.subarray(from), (line) => lines.push(line))
  return { lines, rest: splitter.rest() }
}

// Bytes with the hard parts: newlines, CRs, multi-byte characters cut anywhere, invalid UTF-8.
const hostileBytes = fc.array(
  fc.oneof(
    fc.constantFrom(
      "\n",
      "\r\n",
      "\r",
      "é",
      "😀",
      "{\"type\":\"user\"}",
      "\"[{",
      String.fromCharCode(0)
    ).map((text) => Buffer.from(text, "utf8")),
    fc.uint8Array({ minLength: 0, maxLength: 8 }).map((bytes) => Buffer.from(bytes)),
    fc.string({ maxLength: 12 }).map((text) => Buffer.from(text, "utf8"))
  ),
  { maxLength: 40 }
).map((parts) => Buffer.concat(parts))

// where the bytes are cut into chunks, and the line cap
const chunkCuts = fc.array(fc.nat({ max: 200 }), { maxLength: 12 })
const lineCap = fc.integer({ min: 1, max: 40 })

describe("TranscriptReader.LineSplitter", () => {
  it("gives the same lines, offsets and rest however the bytes are chunked", () => {
    fc.assert(
      fc.property(hostileBytes, chunkCuts, lineCap, (bytes, cuts, cap) => {
        expect(split(bytes, cuts, cap)).toEqual(expectedLines(bytes, cap))
      }),
      { numRuns: 500 }
    )
  })

  it("hands raw lines out of a chunk buffer the caller reuses, decoding to the same lines (acx stats reads so)", () => {
    fc.assert(
      fc.property(hostileBytes, chunkCuts, lineCap, (bytes, cuts, cap) => {
        const splitter = new TranscriptReader.LineSplitter(0, cap)
        const reused = Buffer.alloc(256)
        const lines: Array<TranscriptReader.Line> = []
        // decoded during the call: the bytes are the caller's, overwritten right after
        const take = (raw: TranscriptReader.RawLine) => {
          const text = raw.bytes.subarray(raw.from, raw.to)
          lines.push({
            text: raw.tooLarge ? "" : text.toString("utf8"),
            start: raw.start,
            end: raw.end,
            invalidUtf8: !raw.tooLarge && !isUtf8(text),
            tooLarge: raw.tooLarge
          })
        }
        let from = 0
        for (const cut of [...cuts, bytes.length].sort((a, b) => a - b).filter((cut) => cut <= bytes.length)) {
          const length = bytes.copy(reused, 0, from, cut)
          splitter.feedRaw(reused.subarray(0, length), take)
          reused.fill(0x58)
          from = cut
        }
        const rest = splitter.restRaw()
        const restLines: Array<TranscriptReader.Line> = []
        if (rest !== undefined) take(rest)
        if (rest !== undefined) restLines.push(lines.pop()!)
        const expected = expectedLines(bytes, cap)
        expect({ lines, rest: restLines[0] }).toEqual(expected)
      }),
      { numRuns: 300 }
    )
  })

  it("never keeps more than the cap of a line, however long (a 64 MiB line with a 1 KiB cap)", () => {
    const splitter = new TranscriptReader.LineSplitter(10, 1024)
    const lines: Array<TranscriptReader.Line> = []
    const chunk = Buffer.alloc(1024 * 1024, 0x41)
    for (let i = 0; i < 64; i++) splitter.feed(chunk, (line) => lines.push(line))
    splitter.feed(Buffer.from("\n{}\n"), (line) => lines.push(line))
    expect(lines).toEqual([
      { text: "", start: 10, end: 10 + 64 * 1024 * 1024 + 1, invalidUtf8: false, tooLarge: true },
      {
        text: "{}",
        start: 10 + 64 * 1024 * 1024 + 1,
        end: 10 + 64 * 1024 * 1024 + 4,
        invalidUtf8: false,
        tooLarge: false
      }
    ])
  })
})

const readAll = (file: string, options: TranscriptReader.ReadOptions = {}) =>
  Effect.runPromise(
    TranscriptReader.readFile(file, options).pipe(Stream.runCollect, Effect.map(Chunk.toReadonlyArray), Effect.either)
  )

describe("TranscriptReader.readFile", () => {
  it("reads from an offset up to a bound, holding back the unfinished last line", async () => {
    const file = path.join(root, "lines.jsonl")
    fs.writeFileSync(file, "{\"a\":1}\r\n{\"b\":2}\n{\"c\":")
    const read = await readAll(file, { from: 9, chunkSize: 3 })
    expect(Either.isRight(read)).toBe(true)
    const batches = Either.getOrThrow(read)
    expect(batches.flatMap((batch) => batch.lines)).toEqual([
      { text: "{\"b\":2}", start: 9, end: 17, invalidUtf8: false, tooLarge: false }
    ])
    expect(batches.at(-1)).toEqual({
      lines: [],
      end: 17,
      rest: { text: "{\"c\":", start: 17, end: 22, invalidUtf8: false, tooLarge: false }
    })
    const bounded = Either.getOrThrow(await readAll(file, { until: 9 }))
    expect(bounded.flatMap((batch) => batch.lines).map((line) => line.text)).toEqual(["{\"a\":1}"])
    expect(bounded.at(-1)?.rest).toBeUndefined()
  })

  it("refuses a FIFO at once, with NotAFile, without waiting for a writer", async () => {
    const fifo = path.join(root, "agent-x.jsonl")
    execFileSync("mkfifo", [fifo])
    const read = await readAll(fifo)
    expect(Either.isLeft(read) && read.left.reason).toBe("NotAFile")
    expect(() => TranscriptReader.openSync(fifo)).toThrow(/not a regular file \(a FIFO\)/)
  })

  it("reads a small side file whole, regular files only and up to a size", async () => {
    const meta = path.join(root, "agent-a.meta.json")
    fs.writeFileSync(meta, "{\"agentType\":\"x\"}")
    const text = (file: string, max: number) => Effect.runPromise(Effect.either(TranscriptReader.readText(file, max)))
    expect(await text(meta, 100)).toEqual(Either.right("{\"agentType\":\"x\"}"))
    const large = await text(meta, 5)
    expect(Either.isLeft(large) && large.left.reason).toBe("TooLarge")
    const fifo = path.join(root, "agent-b.meta.json")
    execFileSync("mkfifo", [fifo])
    const piped = await text(fifo, 100)
    expect(Either.isLeft(piped) && piped.left.reason).toBe("NotAFile")
  })

  it("refuses a directory with NotAFile and a missing file with NotFound", async () => {
    const dir = path.join(root, "dir.jsonl")
    fs.mkdirSync(dir)
    const directory = await readAll(dir)
    expect(Either.isLeft(directory) && directory.left.reason).toBe("NotAFile")
    const missing = await readAll(path.join(root, "missing.jsonl"))
    expect(Either.isLeft(missing) && missing.left.reason).toBe("NotFound")
  })
})

const nested = (depth: number) => `{"type":"user","x":${"[".repeat(depth)}${"]".repeat(depth)}}`

describe("JsonDepth", () => {
  it("tells how deep JSON nests, brackets inside strings (and escaped quotes) not counted", () => {
    expect(JsonDepth.exceedsDepth(nested(JsonDepth.MAX_DEPTH - 1))).toBe(false)
    expect(JsonDepth.exceedsDepth(nested(JsonDepth.MAX_DEPTH))).toBe(true)
    expect(JsonDepth.exceedsDepth(nested(200_000))).toBe(true)
    const inString = JSON.stringify({ type: "user", text: "[".repeat(10_000) + "\\\"" + "{".repeat(10_000) })
    expect(JsonDepth.exceedsDepth(inString)).toBe(false)
    expect(JsonDepth.exceedsDepth("[[[", 2)).toBe(true)
    expect(JsonDepth.exceedsDepth("[\"[[\"]", 2)).toBe(false)
  })

  it("agrees with the depth of the parsed value on generated JSON", () => {
    const depthOf = (value: unknown): number =>
      typeof value === "object" && value !== null
        ? 1 + Math.max(0, ...Object.values(value).map(depthOf))
        : 0
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 7 }), (value, max) => {
        const text = JSON.stringify(value)
        expect(JsonDepth.exceedsDepth(text, max)).toBe(depthOf(value) > max)
      }),
      { numRuns: 300 }
    )
  })

  it("a line nested 20 000 deep is a TooDeep line error, and the lines around it are entries", () => {
    const text = `{"type":"user","uuid":"a"}\n${nested(20_000)}\n{"type":"user","uuid":"b"}\n`
    const parsed = parseTranscript(text)
    expect(parsed.entries.map((entry) => entry.entry.uuid)).toEqual(["a", "b"])
    expect(parsed.errors.map((error) => [error.line, error.reason])).toEqual([[2, "TooDeep"]])
    const decoded = TranscriptLine.decodeLine(nested(20_000), 1)
    expect(Either.isLeft(decoded) && decoded.left.reason).toBe("TooDeep")
  })
})
