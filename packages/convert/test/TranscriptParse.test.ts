import { feed, finish, initialParser, parseTranscript } from "@acx/convert/TranscriptParse"
import type { ParseResult, ParserState } from "@acx/convert/TranscriptParse"
import * as Fixtures from "@acx/fixtures"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as fs from "node:fs"

const user = (uuid: string) =>
  JSON.stringify({ type: "user", uuid, parentUuid: null, message: { role: "user", content: "hi" } })

const chunked = (text: string, cuts: ReadonlyArray<number>): ParseResult => {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b)
  let state: ParserState = initialParser
  const entries: ParseResult["entries"] = []
  const errors: ParseResult["errors"] = []
  let from = 0
  for (const to of [...points, text.length]) {
    const result = feed(state, text.slice(from, to))
    state = result.state
    entries.push(...result.entries)
    errors.push(...result.errors)
    from = to
  }
  const last = finish(state)
  return { entries: [...entries, ...last.entries], errors: [...errors, ...last.errors], torn: last.torn }
}

const sample = [
  user("u1"),
  "",
  "{not json",
  "42",
  JSON.stringify({ no: "type" }),
  `${user("u2")}\r`,
  "   ",
  JSON.stringify({ type: "ai-title", aiTitle: "t", sessionId: "s" }),
  user("u3").slice(0, 30)
].join("\n")

describe("parseTranscript", () => {
  it("decodes every non-blank line and reports the rest with line numbers", () => {
    const result = parseTranscript(sample)
    expect(result.entries.map(({ line }) => line)).toEqual([1, 6, 8])
    expect(result.errors.map(({ line, reason }) => [line, reason])).toEqual([
      [3, "InvalidJson"],
      [4, "NotAnObject"],
      [5, "InvalidEntry"],
      [9, "InvalidJson"]
    ])
    expect(result.torn).toBe(true)
    expect(result.errors[3]?.description).toMatch(/^torn last line/)
  })

  it("reads a last line without newline when it is complete", () => {
    const result = parseTranscript(`${user("a")}\n${user("b")}`)
    expect(result.entries.map(({ line }) => line)).toEqual([1, 2])
    expect(result).toMatchObject({ errors: [], torn: false })
  })

  it("does not call an invalid line torn when a newline ends it", () => {
    const result = parseTranscript(`${user("a")}\n{torn\n`)
    expect(result.torn).toBe(false)
    expect(result.errors.map(({ description, line }) => [line, description.startsWith("torn")])).toEqual([[2, false]])
  })

  it("handles CRLF and empty input", () => {
    expect(parseTranscript(`${user("a")}\r\n${user("b")}\r\n`).entries).toHaveLength(2)
    expect(parseTranscript("")).toEqual({ entries: [], errors: [], torn: false })
    expect(parseTranscript("\n\r\n  \n")).toEqual({ entries: [], errors: [], torn: false })
  })

  it("never throws", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const result = parseTranscript(text)
        expect(result.entries.length + result.errors.length).toBeLessThanOrEqual(text.split("\n").length)
      }),
      { numRuns: 500 }
    )
  })
})

describe("incremental parser", () => {
  it("gives parseTranscript's result however the text is chunked", () => {
    const text = fc.oneof(
      fc.constant(sample),
      fc.constant(`${sample}\n`),
      fc.array(fc.oneof(fc.constant(user("x")), fc.string(), fc.constant("\r")), { maxLength: 8 }).map((lines) =>
        lines.join("\n")
      ),
      fc.string()
    )
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 12 }), (input, cuts) => {
        expect(chunked(input, cuts)).toEqual(parseTranscript(input))
      }),
      { numRuns: 1_000 }
    )
  })

  it("splits a CRLF between chunks", () => {
    const text = `${user("a")}\r\n${user("b")}\r\n`
    const cut = text.indexOf("\n")
    expect(chunked(text, [cut, cut + 1])).toEqual(parseTranscript(text))
    expect(chunked(text, [cut]).entries).toHaveLength(2)
  })
})

describe(
  "fixture transcripts",
  () => {
    it("parse without errors and chunk-independently", () => {
      const files = Fixtures.transcriptFiles()
      expect(files.length).toBeGreaterThan(0)
      for (const file of files) {
        const text = fs.readFileSync(file, "utf8")
        const whole = parseTranscript(text)
        expect(whole.errors.map((error) => `${Fixtures.relative(file)}: ${error.message}`)).toEqual([])
        expect(whole.entries.length).toBe(text.split("\n").filter((line) => line.trim() !== "").length)
        const cuts = [1, 7, 4096, 65536, Math.floor(text.length / 3)]
        expect(chunked(text, cuts)).toEqual(whole)
      }
    })
  }
)
