/**
 * The worker thread of {@link TranscriptStats}: folds the files it is sent, one message per
 * job, with the pricing table it was started with. Kept free of Effect and the CLI so it starts
 * in milliseconds (the CLI ships it as its own bundle, `acx-stats-worker.mjs`).
 *
 * @internal
 */
import type * as Pricing from "@acx/convert/Pricing"
import { parentPort, workerData } from "node:worker_threads"
import { type FoldJob, runFoldJob } from "./statsFile.js"

const pricing = (workerData as { readonly pricing: Pricing.PricingTable }).pricing

parentPort?.on("message", (message: { readonly id: number; readonly job: FoldJob }) => {
  try {
    parentPort!.postMessage({ id: message.id, done: runFoldJob(message.job, pricing) })
  } catch (cause) {
    parentPort!.postMessage({ id: message.id, error: cause instanceof Error ? cause.message : String(cause) })
  }
})
