/**
 * The worker thread of {@link TranscriptStats}: folds the jobs it is started with, taking the
 * next one itself from a counter the threads share (`Atomics.add`), so no thread waits on
 * another to be handed work, and sends the results back in batches, each fold as JSON text (a
 * string crosses threads as a copy of its bytes; cloning a fold's objects cost more than
 * folding). Kept free of Effect and the CLI so it starts in milliseconds (the CLI ships it as its
 * own bundle, `acx-stats-worker.mjs`).
 *
 * @internal
 */
import type * as Pricing from "@acx/convert/Pricing"
import { parentPort, workerData } from "node:worker_threads"
import { type FoldJob, type FoldResult, runFoldJob } from "./statsFile.js"

/** What a pool's thread is started with. @internal */
export interface PoolData {
  readonly pricing: Pricing.PricingTable
  readonly jobs: ReadonlyArray<FoldJob>
  /** An `Int32Array`'s buffer: the index of the next job not yet taken. */
  readonly next: SharedArrayBuffer
}

/** A message of a pool's thread: a batch of results, its end, or why it stopped. @internal */
export type PoolMessage =
  | { readonly _tag: "Batch"; readonly results: ReadonlyArray<FoldResult> }
  | { readonly _tag: "End" }
  | { readonly _tag: "Failed"; readonly id: number; readonly error: string }

// a batch is sent once it holds this many results or this many characters of folds
const BATCH_RESULTS = 64
const BATCH_CHARS = 1024 * 1024

const run = (data: PoolData, post: (message: PoolMessage) => void): void => {
  const next = new Int32Array(data.next)
  let batch: Array<FoldResult> = []
  let chars = 0
  const flush = () => {
    if (batch.length > 0) post({ _tag: "Batch", results: batch })
    batch = []
    chars = 0
  }
  for (let id = Atomics.add(next, 0, 1); id < data.jobs.length; id = Atomics.add(next, 0, 1)) {
    let result: FoldResult
    try {
      const done = runFoldJob(data.jobs[id]!, data.pricing)
      result = { ...done, id, state: JSON.stringify(done.state) }
    } catch (cause) {
      flush()
      return post({ _tag: "Failed", id, error: cause instanceof Error ? cause.message : String(cause) })
    }
    batch.push(result)
    chars += result.state.length
    if (batch.length >= BATCH_RESULTS || chars >= BATCH_CHARS) flush()
  }
  flush()
  post({ _tag: "End" })
}

if (parentPort !== null) run(workerData as PoolData, (message) => parentPort!.postMessage(message))
