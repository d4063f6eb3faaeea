/**
 * A worker process for the SQLite concurrency test: opens the real adapter on the given file
 * and appends `batches` batches to one session, interleaving with the other workers. Each batch
 * holds `batchSize` entries with worker-unique uuids, one entry without a uuid, and the shared
 * uuids every worker appends (each must end up stored once). Every third batch is appended twice,
 * like an SDK retry after a lost acknowledgement.
 *
 * The store is opened (and the file migrated, concurrently with the other workers) first; the
 * worker then prints `ready` and starts appending when a line arrives on stdin, so that the
 * parent starts all workers together.
 *
 * Usage: `node --import tsx sqliteAppendWorker.ts <filename> <worker> <batches> <batchSize>`
 */
import { createSqliteSessionStore } from "@acx/session-store/SqliteSessionStore"
import { appendBatches, waitForGo } from "@acx/testing/SessionStoreConcurrency"

const [filename, worker, batchesText, batchSizeText] = process.argv.slice(2)
if (filename === undefined || worker === undefined) {
  throw new Error("usage: sqliteAppendWorker <filename> <worker> <batches> <batchSize>")
}
const batches = Number(batchesText ?? "25")
const batchSize = Number(batchSizeText ?? "20")
const key = { projectKey: "concurrency", sessionId: "shared-session" }

const store = createSqliteSessionStore({ filename, busyTimeout: "30 seconds" })
const go = waitForGo()
try {
  // Opens the file and runs the migrations now, before the synchronised start.
  await store.listSessions(key.projectKey)
  process.stdout.write("ready\n")
  await go
  await appendBatches(store, key, worker, batches, batchSize)
} finally {
  await store.close()
}
