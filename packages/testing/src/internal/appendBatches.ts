/**
 * The append pattern every concurrency worker runs (see sqliteAppendWorker.ts): `batches` batches
 * of `batchSize` entries with worker-unique uuids, one entry without uuid, and the shared uuid
 * every worker appends; every third batch appended twice, like an SDK retry after a lost
 * acknowledgement.
 */
interface Appender {
  readonly append: (key: { projectKey: string; sessionId: string }, entries: Array<{ type: string }>) => Promise<void>
}

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

export const appendBatches = async (
  store: Appender,
  key: { projectKey: string; sessionId: string },
  worker: string,
  batches: number,
  batchSize: number
): Promise<void> => {
  for (let batch = 0; batch < batches; batch++) {
    const entries: Array<{ type: string; uuid?: string; worker: string; batch: number; index: number }> = []
    for (let index = 0; index < batchSize; index++) {
      entries.push({ type: "user", uuid: `w${worker}-b${batch}-e${index}`, worker, batch, index })
    }
    entries.push({ type: "marker", worker, batch, index: batchSize })
    entries.push({ type: "shared", uuid: `shared-${batch}`, worker, batch, index: batchSize + 1 })
    await store.append(key, entries)
    if (batch % 3 === 0) await store.append(key, entries.filter((entry) => entry.uuid !== undefined))
    await sleep(1)
  }
}

/** Resolves when the parent writes a line on stdin: all workers start together. */
export const waitForGo = (): Promise<void> =>
  new Promise<void>((resolve) =>
    process.stdin.once("data", () => {
      process.stdin.destroy()
      resolve()
    })
  )
