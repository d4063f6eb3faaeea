/**
 * `pnpm bench` for `TranscriptReader`, the one reader of transcripts: a file of about 100 MB built
 * from the fixture transcripts (repeated) read whole into entries the way `acx show` reads it
 * (`TranscriptReader.readFile`, each line decoded with the transcript line rules, the depth cap
 * included), against a baseline measured in the same run over the same file: `readFileSync`,
 * split on newlines, `JSON.parse` of every line — the least any reader does. The depth check
 * alone (`JsonDepth.exceedsDepth` over every line) is timed against `JSON.parse` of the same
 * lines. Rounds alternate the order; medians are printed with the ratios. The file is removed at
 * the end.
 */
import * as Fixtures from "@acx/fixtures"
import * as JsonDepth from "@acx/schema/JsonDepth"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { foldTranscript } from "../src/internal/transcriptFile.js"

const TARGET_BYTES = Number(process.env["ACX_BENCH_BYTES"] ?? 100_000_000)
const ROUNDS = 7

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "acx-reader-bench-"))
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }))
const file = path.join(dir, "big.jsonl")
const fixtures = Fixtures.transcriptFiles().map((source) => fs.readFileSync(source, "utf8")).join("")
let text = ""
while (text.length < TARGET_BYTES) text += fixtures
fs.writeFileSync(file, text)
const megabytes = fs.statSync(file).size / 1e6
const lines = text.split("\n").filter((line) => line !== "")
text = ""

const timed = async (run: () => Promise<unknown>): Promise<number> => {
  const started = performance.now()
  await run()
  return performance.now() - started
}

let entries = 0
const reader = () => Effect.runPromise(foldTranscript(file, { onEntry: () => entries++, onError: () => {} }))

const baseline = async () => {
  for (const line of fs.readFileSync(file, "utf8").split("\n")) if (line !== "") JSON.parse(line)
}

const parseOnly = async () => {
  for (const line of lines) JSON.parse(line)
}

const depthOnly = async () => {
  for (const line of lines) JsonDepth.exceedsDepth(line)
}

const samples: Record<"reader" | "baseline" | "parse" | "depth", Array<number>> = {
  reader: [],
  baseline: [],
  parse: [],
  depth: []
}
for (let round = 0; round < ROUNDS; round++) {
  if (round % 2 === 0) {
    samples.reader.push(await timed(reader))
    samples.baseline.push(await timed(baseline))
  } else {
    samples.baseline.push(await timed(baseline))
    samples.reader.push(await timed(reader))
  }
  samples.parse.push(await timed(parseOnly))
  samples.depth.push(await timed(depthOnly))
}

const median = (values: Array<number>): number => values.slice().sort((a, b) => a - b)[values.length >> 1]!
const ms = (value: number) => `${value.toFixed(0)} ms`
const rate = (value: number) => `${(megabytes / (value / 1000)).toFixed(0)} MB/s`
const reading = median(samples.reader)
const base = median(samples.baseline)
console.log(`TranscriptReader: ${megabytes.toFixed(1)} MB, ${lines.length} lines, ${ROUNDS} rounds (medians)`)
console.log(`  full read into entries: ${ms(reading)} (${rate(reading)})`)
console.log(`  baseline (readFileSync + split + JSON.parse): ${ms(base)} (${rate(base)})`)
console.log(`  ratio: ${(base / reading).toFixed(2)}× the baseline's throughput`)
console.log(
  `  depth check: ${ms(median(samples.depth))} against JSON.parse ${ms(median(samples.parse))}: ${
    (median(samples.depth) / median(samples.parse)).toFixed(3)
  }× its time`
)
