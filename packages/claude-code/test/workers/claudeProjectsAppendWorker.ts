/**
 * A worker process for the Claude-layout concurrency test: opens `ClaudeProjectsSessionStore` on
 * the given config directory and appends `batches` batches to one session, interleaving with
 * the other workers (same batch shapes as sqliteAppendWorker.ts: worker-unique uuids, one entry
 * without uuid, the shared uuids every worker appends, every third batch appended twice). Prints
 * `ready`, then starts when a line arrives on stdin.
 *
 * Usage: `node --import tsx claudeProjectsAppendWorker.ts <configDir> <worker> <batches> <batchSize>`
 */
import { createClaudeProjectsSessionStore } from "@acx/claude-code/ClaudeProjectsSessionStore"
import { appendBatches, waitForGo } from "@acx/testing/SessionStoreConcurrency"

const [configDir, worker, batchesText, batchSizeText] = process.argv.slice(2)
if (configDir === undefined || worker === undefined) {
  throw new Error("usage: claudeProjectsAppendWorker <configDir> <worker> <batches> <batchSize>")
}
const batches = Number(batchesText ?? "25")
const batchSize = Number(batchSizeText ?? "20")
const key = { projectKey: "concurrency", sessionId: "0b5c3f4e-2a47-4c1e-9d3b-6f1a2e8c7d90" }

const store = createClaudeProjectsSessionStore({ configDir, lockTimeout: "60 seconds" })
const go = waitForGo()
try {
  process.stdout.write("ready\n")
  await go
  await appendBatches(store, key, worker, batches, batchSize)
} finally {
  await store.close()
}
