/**
 * Runs the interleaved-append workers (test/workers/*AppendWorker.ts) and checks what they left:
 * every entry once, the shared uuids once, each process's entries in its order, real
 * interleaving, and a summary equal to a fresh fold.
 */
import { foldSessionSummary } from "@anthropic-ai/claude-agent-sdk"
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { expect } from "vitest"

const packageDir = fileURLToPath(new URL("../..", import.meta.url))

export interface AppendRun {
  readonly workers: number
  readonly batches: number
  readonly batchSize: number
}

/** Spawns a worker; `ready` resolves once it opened its store, `go()` starts its appends. */
const spawnWorker = (workerFile: string, args: ReadonlyArray<string>) => {
  const child = spawn(process.execPath, ["--import", "tsx", workerFile, ...args], {
    cwd: packageDir,
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const done = new Promise<void>((resolve, reject) => {
    child.on("error", reject)
    child.on(
      "exit",
      (code) => code === 0 ? resolve() : reject(new Error(`worker ${args.join(" ")} exited with ${code}: ${stderr}`))
    )
  })
  const ready = Promise.race([
    new Promise<void>((resolve) => child.stdout.once("data", () => resolve())),
    done.then(() => Promise.reject(new Error(`worker ${args.join(" ")} exited before it was ready`)))
  ])
  return { ready, done, go: () => child.stdin.end("go\n") }
}

/** Starts `run.workers` workers together (`target` first argument, then worker, batches, batch size). */
export const runAppendWorkers = async (workerName: string, target: string, run: AppendRun): Promise<void> => {
  const workerFile = fileURLToPath(new URL(`../workers/${workerName}`, import.meta.url))
  const children = Array.from(
    { length: run.workers },
    (_, worker) => spawnWorker(workerFile, [target, String(worker), String(run.batches), String(run.batchSize)])
  )
  await Promise.all(children.map((child) => child.ready))
  for (const child of children) child.go()
  await Promise.all(children.map((child) => child.done))
}

/** What the workers must have left in the session `key`. */
export const expectInterleavedAppends = async (
  store: Pick<Sdk.SessionStore, "load"> & Required<Pick<Sdk.SessionStore, "listSessions" | "listSessionSummaries">>,
  key: { readonly projectKey: string; readonly sessionId: string },
  run: AppendRun
): Promise<void> => {
  const { batchSize, batches, workers } = run
  const loaded = (await store.load(key)) ?? []
  // worker entries with uuid + one marker per batch + the shared uuids once
  expect(loaded).toHaveLength(workers * batches * (batchSize + 1) + batches)
  const uuids = loaded.flatMap((entry) => (entry.uuid === undefined ? [] : [entry.uuid]))
  expect(new Set(uuids).size).toBe(uuids.length)
  for (let batch = 0; batch < batches; batch++) {
    expect(uuids.filter((uuid) => uuid === `shared-${batch}`)).toHaveLength(1)
  }
  for (let worker = 0; worker < workers; worker++) {
    const own = loaded.filter((entry) => entry["worker"] === String(worker) && entry.type !== "shared")
    expect(own).toHaveLength(batches * (batchSize + 1))
    const order = own.map((entry) => Number(entry["batch"]) * 1000 + Number(entry["index"]))
    expect(order).toEqual([...order].sort((a, b) => a - b))
  }
  // The processes really interleaved.
  const writers = loaded.map((entry) => entry["worker"])
  const switches = writers.filter((writer, i) => i > 0 && writer !== writers[i - 1]).length
  expect(switches).toBeGreaterThan(workers)
  const [summary] = await store.listSessionSummaries(key.projectKey)
  const [listing] = await store.listSessions(key.projectKey)
  expect(summary).toEqual(foldSessionSummary(undefined, key, loaded, { mtime: listing!.mtime }))
}
