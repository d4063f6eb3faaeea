import { parseTranscript } from "@acx/convert/TranscriptParse"
import { serializeEntry, serializeTranscript } from "@acx/convert/TranscriptWrite"
import * as Fixtures from "@acx/fixtures"
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"

const entriesOf = (text: string) => parseTranscript(text).entries.map(({ entry }) => entry)

describe("TranscriptWrite", () => {
  it("writes one line per entry, with escaped newlines and a trailing newline", () => {
    const entries = entriesOf(
      `${
        JSON.stringify({ type: "user", uuid: "u1", parentUuid: null, message: { role: "user", content: "a\nb\r\nc" } })
      }\n` +
        `${JSON.stringify({ type: "custom-title", customTitle: "t\u2028", sessionId: "s" })}\n`
    )
    expect(entries).toHaveLength(2)
    const text = serializeTranscript(entries)
    expect(text.endsWith("\n")).toBe(true)
    expect(text.split("\n")).toHaveLength(3)
    for (const entry of entries) expect(serializeEntry(entry)).not.toMatch(/[\n\r]/)
    expect(entriesOf(text)).toEqual(entries)
    expect(serializeTranscript([])).toBe("")
  })
})

describe(
  "fixture transcripts round-trip",
  () => {
    it("parse → write → parse gives the same entries for every fixture", () => {
      const files = Fixtures.transcriptFiles()
      expect(files.length).toBeGreaterThan(0)
      for (const file of files) {
        const first = entriesOf(fs.readFileSync(file, "utf8"))
        expect(entriesOf(serializeTranscript(first)), Fixtures.relative(file)).toEqual(first)
      }
    })

    it("writes the original bytes back for fixtures whose lines are canonical JSON", () => {
      let canonical = 0
      for (const file of Fixtures.transcriptFiles()) {
        const text = fs.readFileSync(file, "utf8")
        const parsed = parseTranscript(text)
        const lines = text.split("\n").filter((line) => line.trim() !== "")
        const isCanonical = parsed.errors.length === 0 && text.endsWith("\n") &&
          lines.every((line) => JSON.stringify(JSON.parse(line)) === line)
        if (!isCanonical) continue
        canonical++
        expect(serializeTranscript(parsed.entries.map(({ entry }) => entry)), Fixtures.relative(file)).toBe(text)
      }
      expect(canonical).toBeGreaterThan(0)
    })
  }
)
