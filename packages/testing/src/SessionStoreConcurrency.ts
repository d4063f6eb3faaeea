/**
 * Several processes appending to one session at once: the check every SessionStore adapter that
 * claims cross-process safety should pass (acx runs it on SQLite, Postgres and the Claude Code
 * layout). A worker script opens the store under test and calls {@link appendBatches}; the test
 * starts the workers together with {@link runAppendWorkers} and checks what they left with
 * {@link expectInterleavedAppends}: every entry once, the uuids all workers share once, each
 * process's entries in its own order, real interleaving, and a summary equal to a fresh fold.
 *
 * @example
 * ```ts
 * // worker.ts — node --import tsx worker.ts <file> <worker> <batches> <batchSize>
 * import { appendBatches, waitForGo } from "@acx/testing/SessionStoreConcurrency"
 * const [file, worker, batches, batchSize] = process.argv.slice(2)
 * const store = openMyStore(file)
 * const go = waitForGo()
 * process.stdout.write("ready\n")
 * await go
 * await appendBatches(store, { projectKey: "concurrency", sessionId: "shared-session" }, worker, +batches, +batchSize)
 *
 * // my-store.test.ts
 * const run = { workers: 4, batches: 25, batchSize: 20 }
 * await runAppendWorkers(new URL("./worker.ts", import.meta.url), file, run)
 * await expectInterleavedAppends(openMyStore(file), { projectKey: "concurrency", sessionId: "shared-session" }, run)
 * ```
 *
 * `vitest` and the Claude Agent SDK are loaded by {@link expectInterleavedAppends} only.
 *
 * @since 0.1.0
 */
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { loadSdk, loadVitest } from "./internal/optional.js"

export { appendBatches, waitForGo } from "./internal/appendBatches.js"

/**
 * How many workers, and how much each appends.
 *
 * @since 0.1.0
 * @category models
 */
export interface AppendRun {
  readonly workers: number
  readonly batches: number
  readonly batchSize: number
}

/**
 * Options of {@link runAppendWorkers}.
 *
 * @since 0.1.0
 * @category models
 */
export interface AppendWorkersOptions {
  /** Node flags for each worker. Default: `--import tsx` for a `.ts` worker, none otherwise. */
  readonly execArgv?: ReadonlyArray<string> | undefined
  /** Working directory of the workers. Default: this process's. */
  readonly cwd?: string | undefined
}

/** Spawns a worker; `ready` resolves once it opened its store, `go()` starts its appends. */
const spawnWorker = (
  workerFile: string,
  args: ReadonlyArray<string>,
  execArgv: ReadonlyArray<string>,
  cwd: string
) => {
  const child = spawn(process.execPath, [...execArgv, workerFile, ...args], { cwd, stdio: ["pipe", "pipe", "pipe"] })
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

/**
 * Starts `run.workers` worker processes (arguments: `target`, the worker's number, batches,
 * batch size), waits until each printed a line (its store is open), then lets them all append at
 * once and resolves when every one exited with 0.
 *
 * @since 0.1.0
 * @category constructors
 */
export const runAppendWorkers = async (
  workerFile: string | URL,
  target: string,
  run: AppendRun,
  options: AppendWorkersOptions = {}
): Promise<void> => {
  const file = typeof workerFile === "string" ? workerFile : fileURLToPath(workerFile)
  const execArgv = options.execArgv ?? (file.endsWith(".ts") ? ["--import", "tsx"] : [])
  const children = Array.from(
    { length: run.workers },
    (_, worker) =>
      spawnWorker(
        file,
        [target, String(worker), String(run.batches), String(run.batchSize)],
        execArgv,
        options.cwd ?? process.cwd()
      )
  )
  await Promise.all(children.map((child) => child.ready))
  for (const child of children) child.go()
  await Promise.all(children.map((child) => child.done))
}

/**
 * Checks (with vitest's `expect`) what the workers of {@link runAppendWorkers} must have left in
 * the session `key`.
 *
 * @since 0.1.0
 * @category assertions
 */
export const expectInterleavedAppends = async (
  store: Pick<Sdk.SessionStore, "load"> & Required<Pick<Sdk.SessionStore, "listSessions" | "listSessionSummaries">>,
  key: { readonly projectKey: string; readonly sessionId: string },
  run: AppendRun
): Promise<void> => {
  const { expect } = await loadVitest()
  const { foldSessionSummary } = await loadSdk()
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
  // The processes really interleaved: one after another they switch `workers - 1` times, so at
  // least `workers` switches mean one wrote again after another had started. (More is not
  // owed: on a loaded machine the scheduler ran two writers as w0, w1, w0: two switches.)
  const writers = loaded.map((entry) => entry["worker"])
  const switches = writers.filter((writer, i) => i > 0 && writer !== writers[i - 1]).length
  expect(switches).toBeGreaterThanOrEqual(workers)
  const [summary] = await store.listSessionSummaries(key.projectKey)
  const [listing] = await store.listSessions(key.projectKey)
  expect(summary).toEqual(foldSessionSummary(undefined, key, loaded, { mtime: listing!.mtime }))
}
