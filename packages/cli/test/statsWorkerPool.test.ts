/**
 * The statistics worker threads of the built bundle (`dist/acx-stats-worker.mjs`, what a cold
 * `acx stats` starts): they take their jobs from the counter they share, so they fold every file
 * while the thread that started them never runs its event loop (it used to hand each worker its
 * next job on each result: a busy main thread left both idle), and send each fold back once, as
 * JSON text that restores to the fold one thread makes.
 */
import * as TranscriptFolds from "@acx/claude-code/TranscriptFolds"
import * as Pricing from "@acx/convert/Pricing"
import * as StatsFold from "@acx/convert/StatsFold"
import * as Fixtures from "@acx/fixtures"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Worker } from "node:worker_threads"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TEST_TIMEOUT_MS } from "./utils/acx.js"

const script = fileURLToPath(new URL("../dist/acx-stats-worker.mjs", import.meta.url))
const pricing = Pricing.builtinPricing
const THREADS = 2

let root: string
let files: Array<string>
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "acx-stats-pool-"))
  const sources = Fixtures.transcriptFiles()
  files = Array.from({ length: 30 }, (_, i) => {
    const file = path.join(root, `${i}.jsonl`)
    fs.copyFileSync(sources[i % sources.length]!, file)
    return file
  })
})
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

interface Result {
  readonly id: number
  readonly state: string
  readonly offset: number
  readonly size: number
}
type Message =
  | { readonly _tag: "Batch"; readonly results: ReadonlyArray<Result> }
  | { readonly _tag: "End" }
  | { readonly _tag: "Failed"; readonly error: string }

// Waits, never running this thread's event loop, until `counter` is at least `target` or `give up`
// (only a pool that cannot move without this thread gets there).
const blockUntil = (counter: Int32Array, target: number, giveUpMs: number): number => {
  const nap = new Int32Array(new SharedArrayBuffer(4))
  const deadline = Date.now() + giveUpMs
  while (Atomics.load(counter, 0) < target && Date.now() < deadline) Atomics.wait(nap, 0, 0, 5)
  return Atomics.load(counter, 0)
}

describe("the statistics worker pool of the bundle", () => {
  it(
    "folds every file while the starting thread is blocked; each fold comes back once, as one thread folds it",
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const jobs = files.map((file) => ({ file, kind: "main" as const, offset: 0, state: null }))
      const next = new SharedArrayBuffer(4)
      const messages: Array<Message> = []
      const ended = Array.from({ length: THREADS }, () => {
        const worker = new Worker(script, { workerData: { pricing, jobs, next } })
        worker.on("message", (message: Message) => messages.push(message))
        return new Promise<number>((resolve, reject) => {
          worker.on("exit", resolve)
          worker.on("error", reject)
        })
      })
      // every job taken, and one more take per thread that found none left: all folded
      expect(blockUntil(new Int32Array(next), jobs.length + THREADS, TEST_TIMEOUT_MS / 2)).toBe(jobs.length + THREADS)
      expect(await Promise.all(ended)).toEqual(Array(THREADS).fill(0))
      expect(messages.filter((message) => message._tag === "End").length).toBe(THREADS)
      expect(messages.filter((message) => message._tag === "Failed")).toEqual([])
      const results = messages.flatMap((message) => message._tag === "Batch" ? message.results : [])
      expect(results.map((result) => result.id).sort((a, b) => a - b)).toEqual(jobs.map((_, i) => i))
      const one = await TranscriptFolds.foldTranscripts(
        files.map((file) => ({ projectKey: "p", sessionId: path.basename(file), file, kind: "main" })),
        { scope: root, complete: true },
        { pricing, cacheDir: null, workers: 0 }
      )
      for (const result of results) {
        expect(result.size).toBe(fs.statSync(files[result.id]!).size)
        expect(StatsFold.restore(JSON.parse(result.state))).toEqual(one.folds[result.id]!.fold)
      }
    }
  )
})
