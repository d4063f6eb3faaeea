/**
 * Worker process for the Postgres concurrency test: opens its own `PostgresSessionStore` (its own
 * pool, its own migration run) and appends `batches` batches of `batchSize` entries to one
 * session, then re-appends its first batch (which the uuid index must ignore).
 *
 * argv: url schema projectKey sessionId workerId batches batchSize
 */
import { createPostgresSessionStore } from "@acx/session-store/PostgresSessionStore"

const [url, schema, projectKey, sessionId, workerId, batches, batchSize] = process.argv.slice(2)
const store = createPostgresSessionStore({ url: url!, schema: schema!, maxConnections: 2 })
const key = { projectKey: projectKey!, sessionId: sessionId! }
const batch = (b: number) =>
  Array.from({ length: Number(batchSize) }, (_, i) => {
    const seq = b * Number(batchSize) + i
    return { type: "user", uuid: `w${workerId}-${seq}`, worker: Number(workerId), seq }
  })

try {
  for (let b = 0; b < Number(batches); b++) {
    await store.append(key, batch(b))
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 5))
  }
  await store.append(key, batch(0))
} finally {
  await store.close()
}
