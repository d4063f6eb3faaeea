/**
 * The sessions list of a config directory as the page's server keeps it: the one plain listing
 * (`PlainListing.walkedSessions`: the session index and its cache under `$ACX_HOME/cache`), each
 * session with its origin (this machine and user, its project from its `cwd`), as rows in the
 * listing's order. It walks every project and parses the whole index cache (tens of MB at
 * 20 000 sessions): {@link listConfigDir} runs it in a worker thread (`listWorker.ts`), so that
 * no request waits on it; in the calling thread only where no worker script was built (the
 * TypeScript sources under test).
 */
import * as ConfigTree from "@acx/claude-code/ConfigTree"
import * as ListingRows from "@acx/claude-code/ListingRows"
import * as PlainListing from "@acx/claude-code/PlainListing"
import * as ProjectOrigin from "@acx/claude-code/ProjectOrigin"
import * as SessionIndexCache from "@acx/claude-code/SessionIndexCache"
import type * as StatsReport from "@acx/convert/StatsReport"
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import { Worker } from "node:worker_threads"

/** Which config directory, read how, cached where. */
export interface ConfigListingOptions {
  /** Absolute. */
  readonly configDir: string
  readonly followSymlinks: boolean
  /** `$ACX_HOME/cache`: the session index's cache. */
  readonly cacheDir: string
}

/** The rows (newest first) and their origins by `projectKey/sessionId`, or what stopped the walk. */
export type ConfigListing =
  | {
    readonly rows: ReadonlyArray<ListingRows.ListedSession>
    readonly origins: ReadonlyArray<readonly [string, StatsReport.Origin]>
    readonly failure?: undefined
  }
  | { readonly failure: Omit<PlainListing.ListingFailure, "cause"> }

/** The listing, in the calling thread (what the worker runs). */
export const configListing = (options: ConfigListingOptions): ConfigListing => {
  const walk = ConfigTree.walkOf(options.configDir, options.followSymlinks)
  const projectsDir = walk.projectsDir
  const listed = PlainListing.walkedSessions(walk, undefined, {
    projectsDir,
    cacheFile: SessionIndexCache.cacheFileFor(options.cacheDir, projectsDir)
  })
  if (listed.failure !== undefined) {
    return { failure: { reason: listed.failure.reason, description: listed.failure.description } }
  }
  const origins = ProjectOrigin.originsOfSessions(listed.sessions)
  return { rows: ListingRows.rows(listed.sessions, origins), origins: [...origins] }
}

// The worker's script: beside this module when built (`dist/internal/listWorker.js`), or the CLI
// bundle's own (`acx-ui-list-worker.mjs` beside the chunk that holds this code).
const workerScript = (): URL | undefined => {
  for (const candidate of ["./listWorker.js", "./acx-ui-list-worker.mjs"]) {
    const url = new URL(candidate, import.meta.url)
    if (url.protocol === "file:" && fs.existsSync(fileURLToPath(url))) return url
  }
  return undefined
}

const inWorker = (script: URL, options: ConfigListingOptions): Promise<ConfigListing> =>
  new Promise((resolve, reject) => {
    const worker = new Worker(script, { workerData: options })
    let settled = false
    const settle = (settler: () => void) => {
      if (settled) return
      settled = true
      settler()
      // one listing per worker: its heap (the parsed cache) goes with it
      void worker.terminate()
    }
    worker.once("message", (message: { readonly listing?: ConfigListing; readonly error?: string }) =>
      settle(() =>
        message.listing !== undefined ? resolve(message.listing) : reject(new Error(message.error ?? "listing failed"))
      ))
    worker.once("error", (error) => settle(() => reject(error)))
    worker.once("exit", (code) => settle(() => reject(new Error(`the listing's worker exited (${code})`))))
  })

/**
 * The listing, off the calling thread when the worker script is there: the event loop answers
 * other requests meanwhile.
 */
export const listConfigDir = (options: ConfigListingOptions): Promise<ConfigListing> => {
  const script = workerScript()
  if (script !== undefined) return inWorker(script, options)
  return new Promise((resolve, reject) =>
    setImmediate(() => {
      try {
        resolve(configListing(options))
      } catch (cause) {
        reject(cause)
      }
    })
  )
}
