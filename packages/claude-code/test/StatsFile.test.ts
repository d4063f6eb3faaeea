/**
 * `acx stats`' file fold reads lines by the one reader's rules: for a file of generated hostile
 * lines (CRLF and LF endings, blank lines, invalid UTF-8, broken JSON, a last line without its
 * newline), folding it whole or from any line offset it stopped at gives the fold of the lines
 * `TranscriptReader` hands out, the same offset (just past the last `\n`) and the same unfinished
 * last line.
 */
import * as TranscriptReader from "@acx/claude-code/TranscriptReader"
import * as Pricing from "@acx/convert/Pricing"
import * as StatsFold from "@acx/convert/StatsFold"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import * as Chunk from "effect/Chunk"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { runFoldJob } from "../src/internal/statsFile.js"

let root = ""
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-stats-file-"))
})
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const entry = fc.record({
  type: fc.constantFrom("user", "assistant", "system"),
  timestamp: fc.date({ min: new Date("2026-01-01"), max: new Date("2026-01-03"), noInvalidDate: true }).map((d) =>
    d.toISOString()
  ),
  requestId: fc.constantFrom("r1", "r2"),
  message: fc.record({
    id: fc.constantFrom("m1", "m2", "m3"),
    model: fc.constant("claude-sonnet-4-5-20250929"),
    usage: fc.record({ input_tokens: fc.nat(1000), output_tokens: fc.nat(1000) }),
    content: fc.array(fc.record({ type: fc.constant("tool_use"), name: fc.constantFrom("Bash", "Read") }), {
      maxLength: 2
    })
  })
})
const line = fc.oneof(
  { weight: 6, arbitrary: entry.map((value) => Buffer.from(JSON.stringify(value))) },
  { weight: 1, arbitrary: fc.constantFrom("", "   ", "{broken", "[1]", "é😀").map((text) => Buffer.from(text)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 6 }).map((bytes) => Buffer.from(bytes)) }
)
const file = fc.tuple(
  fc.array(fc.tuple(line, fc.constantFrom("\n", "\r\n")), { maxLength: 25 }),
  fc.option(line, { nil: undefined })
).map(([lines, last]) =>
  Buffer.concat([...lines.flatMap(([bytes, end]) => [bytes, Buffer.from(end)]), ...(last === undefined ? [] : [last])])
)

// the day rule runFoldJob folds with
const ctx: StatsFold.FoldContext = { pricing: Pricing.builtinPricing, dayOf: StatsFold.localDayOf(), kind: "main" }

// The fold of the reader's whole lines from `from`, where they end, and the line held back.
const byReader = (name: string, state: StatsFold.FoldState, from: number) =>
  Effect.runPromise(Stream.runCollect(TranscriptReader.readFile(name, { from }))).then((chunks) => {
    const batches = Chunk.toReadonlyArray(chunks)
    for (const batch of batches) {
      for (const read of batch.lines) {
        if (read.tooLarge) state.malformed++
        else StatsFold.foldLine(state, read.text, ctx)
      }
    }
    const last = batches.at(-1)
    return { state, end: last?.end ?? from, rest: last?.rest?.text }
  })

describe("statsFile on the one reader", () => {
  it("folds what TranscriptReader reads, whole or resumed at any line it stopped at", async () => {
    let n = 0
    await fc.assert(
      fc.asyncProperty(file, fc.nat(), async (bytes, pick) => {
        const name = path.join(root, `t${n++}.jsonl`)
        fs.writeFileSync(name, bytes)
        const whole = runFoldJob({ file: name, kind: "main", offset: 0, state: null }, ctx.pricing)
        const expected = await byReader(name, StatsFold.empty(), 0)
        expect(whole.offset).toBe(expected.end)
        expect((whole.tail ?? "").trim()).toBe((expected.rest ?? "").trim())
        expect(StatsFold.restore(whole.state)).toEqual(StatsFold.restore(StatsFold.serialise(expected.state)))
        // stopped at a line start, then resumed from there
        const starts = [0, ...[...bytes].flatMap((byte, i) => byte === 0x0a ? [i + 1] : [])]
        const offset = starts[pick % starts.length]!
        const first = await prefixFold(name, bytes, offset)
        const resumed = runFoldJob(
          { file: name, kind: "main", offset, state: StatsFold.serialise(first) },
          ctx.pricing
        )
        expect(resumed.offset).toBe(whole.offset)
        expect(StatsFold.restore(resumed.state)?.days).toEqual(StatsFold.restore(whole.state)?.days)
      }),
      { numRuns: 60 }
    )
  })
})

// The fold of the file's bytes before `offset` (a line start), as a job that stopped there.
const prefixFold = async (name: string, bytes: Buffer, offset: number) => {
  const prefix = `${name}.head`
  fs.writeFileSync(prefix, bytes.subarray(0, offset))
  return StatsFold.restore(runFoldJob({ file: prefix, kind: "main", offset: 0, state: null }, ctx.pricing).state)!
}
