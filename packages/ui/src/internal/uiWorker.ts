/**
 * The worker thread of `offThread.ts`: runs the job its `workerData` names and posts the answer
 * back (or the error's message), once.
 */
import { parentPort, workerData } from "node:worker_threads"
import { type Job, runHere } from "./offThread.js"

runHere(workerData as Job).then(
  (answer) => parentPort?.postMessage({ answer }),
  (cause: unknown) => parentPort?.postMessage({ error: cause instanceof Error ? cause.message : String(cause) })
)
