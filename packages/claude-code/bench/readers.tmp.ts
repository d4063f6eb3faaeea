import * as Fixtures from "@acx/fixtures"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { foldTranscript } from "../src/internal/transcriptFile.js"
import { foldTranscript as oldFold } from "./old-transcriptFile.tmp.js"
import { exceedsDepth } from "@acx/schema/JsonDepth"

const files = Fixtures.transcriptFiles()
let text = ""
for (const f of files) text += fs.readFileSync(f, "utf8")
while (text.length < 60_000_000) text += text
const file = path.join(os.tmpdir(), "acx-readers-bench.jsonl")
fs.writeFileSync(file, text)
const mb = fs.statSync(file).size / 1e6
const lines = text.split("\n")
const time = async (f: () => Promise<unknown>) => { const t = performance.now(); await f(); return performance.now() - t }
const newRead = () => Effect.runPromise(foldTranscript(file, { onEntry: () => {}, onError: () => {} }))
const oldRead = () => Effect.runPromise(Effect.flatMap(FileSystem.FileSystem, (fsys) => oldFold(fsys, file, () => {}, () => {})).pipe(Effect.provide(NodeContext.layer)))
const results: Record<string, number[]> = { old: [], new: [], parse: [], depth: [] }
for (let r = 0; r < 5; r++) {
  results.old!.push(await time(oldRead))
  results.new!.push(await time(newRead))
  results.parse!.push(await time(async () => { for (const l of lines) if (l !== "") JSON.parse(l) }))
  results.depth!.push(await time(async () => { for (const l of lines) exceedsDepth(l) }))
}
const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!
const m = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, median(v)]))
console.log(`${mb.toFixed(1)} MB, ${lines.length} lines; medians ms:`, m)
console.log(`new/old full read: ${(m.new! / m.old!).toFixed(2)}; depth scan / JSON.parse: ${(m.depth! / m.parse!).toFixed(3)}`)
fs.rmSync(file)
