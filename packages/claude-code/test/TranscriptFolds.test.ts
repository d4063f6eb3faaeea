/**
 * `foldTranscripts` handing folds on as they come (`onFold`): in the order of the files, each
 * before the next file is read, none kept unless asked; the report reduced from them equals the
 * report of every fold held; the cache it writes reads back the same on a warm run. (The worker
 * pool is tested on the CLI's bundle, which ships its script: packages/cli/test/statsWorkerPool.test.ts.)
 */
import * as TranscriptFolds from "@acx/claude-code/TranscriptFolds"
import * as Pricing from "@acx/convert/Pricing"
import * as StatsReport from "@acx/convert/StatsReport"
import * as Fixtures from "@acx/fixtures"
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

let root: string
let cacheDir: string
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-transcript-folds-"))
  cacheDir = path.join(root, "cache")
})
afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

const pricing = Pricing.builtinPricing

// the fixtures' transcripts under 1 MB (larger ones are folded first) copied under `root`
const copies = (count: number): Array<TranscriptFolds.TranscriptFile> => {
  const sources = Fixtures.transcriptFiles().filter((file) => fs.statSync(file).size < 1024 * 1024).slice(0, count)
  expect(sources.length).toBe(count)
  return sources.map((source, i) => {
    const file = path.join(root, `${String(i).padStart(2, "0")}-${path.basename(source)}`)
    fs.copyFileSync(source, file)
    return { projectKey: `p${i % 3}`, sessionId: path.basename(source, ".jsonl"), file, kind: "main" }
  })
}

const fold = (files: ReadonlyArray<TranscriptFolds.TranscriptFile>, onFold?: (fold: StatsReport.FileFold) => boolean) =>
  TranscriptFolds.foldTranscripts(files, { scope: root, complete: true }, { pricing, cacheDir, workers: 0, onFold })

describe("foldTranscripts: folds handed on as they come", () => {
  it("each fold goes to onFold in the files' order before the next file is read, and is not kept", async () => {
    const files = copies(4)
    const handed: Array<string> = []
    const run = await fold(files, (item) => {
      handed.push(item.file)
      // the next file goes away: had it been read already, its fold would be handed on too
      if (item.file === files[0]!.file) fs.rmSync(files[1]!.file)
      return false
    })
    expect(handed).toEqual([files[0]!.file, files[2]!.file, files[3]!.file])
    expect(run.skipped).toEqual([{ file: files[1]!.file, reason: "not found" }])
    expect(run.folds).toEqual([])
  })

  it("the report reduced from the handed folds is the report of every fold held, for every grouping", async () => {
    const files = copies(6)
    const held = await TranscriptFolds.foldTranscripts(files, { scope: root, complete: true }, {
      pricing,
      cacheDir: null,
      workers: 0
    })
    expect(held.folds.length).toBe(6)
    for (const by of ["session", "day", "week", "month", "model", "project"] as const) {
      const reducer = StatsReport.reportReducer(by, {}, pricing)
      const kept = await fold(files, (item) => {
        reducer.add(item)
        return item.sessionId === files[2]!.sessionId
      })
      expect(kept.folds.map((item) => item.file)).toEqual([files[2]!.file])
      expect(reducer.finish()).toEqual(StatsReport.report(held.folds, by, {}, pricing))
    }
  })

  it("a warm run hands on the cached folds, in order, with the figures of the cold one", async () => {
    const files = copies(5)
    const cold = StatsReport.reportReducer("session", {}, pricing)
    const first = await fold(files, (item) => (cold.add(item), false))
    expect(first.files.folded).toBe(5)
    const warm = StatsReport.reportReducer("session", {}, pricing)
    const order: Array<string> = []
    const second = await fold(files, (item) => (warm.add(item), order.push(item.file), false))
    expect(second.files).toEqual({ cached: 5, appended: 0, folded: 0 })
    expect(order).toEqual(files.map((item) => item.file))
    expect(warm.finish()).toEqual(cold.finish())
  })
})
