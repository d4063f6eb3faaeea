/**
 * The server's reads of a whole config directory, off its event loop: the sessions list
 * (`configListing.ts`: a walk that stats every transcript and the session index's cache parsed
 * whole) and every session's usage (the stats folds and their cache). At 20 000 sessions each
 * holds a thread for a second: run in the server's thread, it held every other request (the
 * page, its assets, the next page of rows) that long. Each run is a worker thread of its own
 * (`uiWorker.ts`), ended when it answers, so its heap goes with it. Where no worker script was
 * built (the TypeScript sources under test) the job runs in the calling thread.
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as SessionStats from "@acx/claude-code/SessionStats"
import * as AcxHome from "@acx/environment/AcxHome"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { Worker } from "node:worker_threads"
import type * as UiApi from "../UiApi.js"
import { type ConfigListing, configListing } from "./configListing.js"
import { foldedUsage, usageJson } from "./sessionUsage.js"

/** The config directory (absolute), read how, with acx's home (its caches and prices). */
export interface ConfigDirOptions {
  readonly configDir: string
  readonly followSymlinks: boolean
  readonly acxHome: string
}

/** A job and its answer. */
export type Job =
  /** The list; `unless`: the fingerprint of the list kept (`unchanged` when it is this one's). */
  | { readonly job: "list"; readonly options: ConfigDirOptions; readonly unless?: string | undefined }
  /** The usage as the response's JSON text, masked or not (`masked`). */
  | { readonly job: "usage"; readonly options: ConfigDirOptions; readonly masked: boolean }

interface Answers {
  readonly list: ConfigListing
  readonly usage: string
}

const usage = (options: ConfigDirOptions): Promise<UiApi.UsageResponse> =>
  Effect.runPromise(Effect.gen(function*() {
    const cacheDir = AcxHome.paths(options.acxHome).cache
    const projects = yield* ClaudeProjects.make({
      configDir: options.configDir,
      followSymlinks: options.followSymlinks,
      cacheDir
    }).pipe(Effect.provide(NodeContext.layer))
    return yield* foldedUsage(
      (_scope, pricing) => SessionStats.foldStats(projects, undefined, { pricing, cacheDir }),
      options.acxHome
    )
  }))

/** A job, in the calling thread (what the worker runs). */
export const runHere = async <J extends Job>(job: J): Promise<Answers[J["job"]]> => {
  const { options } = job
  const answer = job.job === "list"
    ? configListing({
      configDir: options.configDir,
      followSymlinks: options.followSymlinks,
      cacheDir: AcxHome.paths(options.acxHome).cache
    }, job.unless)
    : usageJson(await usage(options), job.masked)
  return answer as Answers[J["job"]]
}

// The worker's script: beside this module when built (`dist/internal/uiWorker.js`), or the CLI
// bundle's own (`acx-ui-worker.mjs` beside the chunk that holds this code).
const workerScript = (): URL | undefined => {
  for (const candidate of ["./uiWorker.js", "./acx-ui-worker.mjs"]) {
    const url = new URL(candidate, import.meta.url)
    if (url.protocol === "file:" && fs.existsSync(fileURLToPath(url))) return url
  }
  return undefined
}

const inWorker = <A>(script: URL, job: Job, signal: AbortSignal | undefined): Promise<A> =>
  new Promise((resolve, reject) => {
    const worker = new Worker(script, { workerData: job })
    // a job under way never keeps a stopping server's process alive
    worker.unref()
    let settled = false
    const settle = (settler: () => void) => {
      if (settled) return
      settled = true
      settler()
      void worker.terminate()
    }
    worker.once(
      "message",
      (message: { readonly answer?: A; readonly error?: string }) =>
        settle(() => "answer" in message ? resolve(message.answer as A) : reject(new Error(message.error ?? "failed")))
    )
    worker.once("error", (error) => settle(() => reject(error)))
    worker.once("exit", (code) => settle(() => reject(new Error(`acx ui's worker exited (${code})`))))
    // its request went away (a page reloaded): its fold stops
    signal?.addEventListener("abort", () => settle(() => reject(new Error("abandoned"))), { once: true })
  })

/**
 * A job in a worker thread (in this one where none was built): the event loop answers meanwhile.
 * `signal` aborted: the worker is ended.
 */
export const run = <J extends Job>(job: J, signal?: AbortSignal): Promise<Answers[J["job"]]> => {
  const script = workerScript()
  return script !== undefined
    ? inWorker(script, job, signal)
    : new Promise((resolve, reject) => setImmediate(() => runHere(job).then(resolve, reject)))
}
