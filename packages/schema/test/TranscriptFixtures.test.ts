import * as Fixtures from "@acx/fixtures"
import { ContentBlock, Transcript, TranscriptLine } from "@acx/schema"
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"

interface Line {
  readonly number: number
  readonly text: string
}

const linesOf = (file: string): ReadonlyArray<Line> =>
  fs.readFileSync(file, "utf8").split("\n").flatMap((text, index) =>
    text.trim() === "" ? [] : [{ number: index + 1, text }]
  )

const label = (entry: Transcript.TranscriptEntry): string =>
  entry.type === "system" && "subtype" in entry && typeof entry.subtype === "string"
    ? `system/${entry.subtype}`
    : entry.type

const encode = Schema.encodeSync(Transcript.TranscriptEntry)
const decodeKnown = Schema.decodeUnknownEither(Transcript.KnownTranscriptEntry)
const decodeFull = Schema.decodeUnknownEither(Transcript.TranscriptEntry)

describe(
  "transcript fixtures",
  () => {
    const files = Fixtures.transcriptFiles()

    it("finds the fixtures", () => {
      expect(files.length).toBeGreaterThanOrEqual(8)
    })

    it.each(files.map((file) => [Fixtures.relative(file), file] as const))("%s", (_name, file) => {
      const failures: Array<string> = []
      const demoted: Array<string> = []
      const notRoundTripped: Array<number> = []
      // the shallow reader gives exactly what a full schema decode gives, keys in the same order
      const disagreements: Array<number> = []
      const strictFailures: Array<string> = []
      for (const line of linesOf(file)) {
        const result = TranscriptLine.decodeLine(line.text, line.number)
        if (Either.isLeft(result)) {
          failures.push(result.left.message)
          continue
        }
        const entry = result.right
        const full = decodeFull(JSON.parse(line.text))
        if (Either.isLeft(full) || JSON.stringify(full.right) !== JSON.stringify(entry)) {
          disagreements.push(line.number)
        }
        const strict = Transcript.decodeLineStrict(line.text, line.number)
        if (Either.isLeft(strict)) strictFailures.push(strict.left.message)
        if (Transcript.isKnownType(entry.type) && !Transcript.isKnown(entry)) {
          const why = decodeKnown(JSON.parse(line.text))
          demoted.push(`line ${line.number} (${label(entry)}): ${Either.isLeft(why) ? why.left.message : "?"}`)
        }
        // decoded entries re-encode deep-equal to the line (what a SessionStore must keep)
        try {
          expect(encode(entry)).toStrictEqual(JSON.parse(line.text))
        } catch {
          notRoundTripped.push(line.number)
        }
      }
      expect(failures).toStrictEqual([])
      expect(demoted).toStrictEqual([])
      expect(notRoundTripped).toStrictEqual([])
      expect(disagreements).toStrictEqual([])
      expect(strictFailures).toStrictEqual([])
    })

    it("decodes message content into known content blocks", () => {
      const unknownBlocks: Array<string> = []
      for (const file of files) {
        for (const line of linesOf(file)) {
          const entry = TranscriptLine.decodeLine(line.text, line.number)
          if (Either.isLeft(entry)) continue
          const value = entry.right
          if (!Transcript.isKnown(value) || (value.type !== "user" && value.type !== "assistant")) continue
          const content = value.message.content
          if (typeof content === "string") continue
          for (const block of content) {
            if (ContentBlock.isUnknownBlock(block)) {
              unknownBlocks.push(`${Fixtures.relative(file)}:${line.number} ${block.type}`)
            }
          }
        }
      }
      expect(unknownBlocks).toStrictEqual([])
    })

    it("counts entries per type", () => {
      const counts = new Map<string, number>()
      let total = 0
      for (const file of files) {
        for (const line of linesOf(file)) {
          total++
          const result = TranscriptLine.decodeLine(line.text, line.number)
          if (Either.isRight(result)) counts.set(label(result.right), (counts.get(label(result.right)) ?? 0) + 1)
        }
      }
      const sorted = [...counts.entries()].sort(([a], [b]) => a.localeCompare(b))
      console.log(
        `transcript fixtures: ${total} entries in ${files.length} files\n` +
          sorted.map(([type, count]) => `  ${type.padEnd(28)} ${count}`).join("\n")
      )
      expect(sorted.reduce((sum, [, count]) => sum + count, 0)).toBe(total)
      for (const [type] of sorted) {
        expect(Transcript.isKnownType(type.split("/")[0]!), type).toBe(true)
      }
      for (const type of ["user", "assistant", "progress", "file-history-snapshot", "system/compact_boundary"]) {
        expect(counts.get(type), type).toBeGreaterThan(0)
      }
    })
  }
)
