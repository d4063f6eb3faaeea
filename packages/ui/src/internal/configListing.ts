/**
 * The sessions list of a config directory as the page's server keeps it: the one listing `acx
 * sessions` prints (`PlainListing.sessionsListing` over the project index and the rows kept per
 * project under `$ACX_HOME/cache`, for this build), each session with its origin (this machine
 * and user, its project from its `cwd`), as rows in the listing's order. It stats every
 * transcript and reads every project's kept rows (megabytes at 20 000 sessions): the server runs
 * it in a worker thread (`offThread.ts`), so that no request waits on it.
 */
import type * as ListingRows from "@acx/claude-code/ListingRows"
import * as PlainListing from "@acx/claude-code/PlainListing"
import * as ProjectOrigin from "@acx/claude-code/ProjectOrigin"
import type * as StatsReport from "@acx/convert/StatsReport"
import * as BuildId from "@acx/environment/BuildId"

/** Which config directory, read how, cached where. */
export interface ConfigListingOptions {
  /** Absolute. */
  readonly configDir: string
  readonly followSymlinks: boolean
  /** `$ACX_HOME/cache`: the session index's cache. */
  readonly cacheDir: string
}

/**
 * The rows (newest first), their origins by `projectKey/sessionId` and the walk's fingerprint;
 * or `unchanged` (the fingerprint asked about is this walk's); or what stopped the walk.
 */
export type ConfigListing =
  | {
    readonly rows: ReadonlyArray<ListingRows.ListedSession>
    readonly origins: ReadonlyArray<readonly [string, StatsReport.Origin]>
    readonly fingerprint: string
    readonly failure?: undefined
    readonly unchanged?: undefined
  }
  | { readonly unchanged: true; readonly failure?: undefined }
  | { readonly failure: Omit<PlainListing.ListingFailure, "cause">; readonly unchanged?: undefined }

/**
 * The listing, in the calling thread; `unchanged` when the walk's digest
 * (`PlainListing.listingDigest`: every transcript's path, size and mtime) is `unless`: a page
 * opening reads the directory again, and when no transcript was added, removed or written since
 * the kept list, the walk (a stat per transcript) is all it costs — no kept rows read, nor 20 000
 * rows copied back to the server's thread and compared there.
 */
export const configListing = (options: ConfigListingOptions, unless?: string): ConfigListing => {
  const listed = PlainListing.sessionsListing(options.configDir, {
    followSymlinks: options.followSymlinks,
    cacheDir: options.cacheDir,
    build: BuildId.BUILD,
    keeps: (digest) => digest === unless
  })
  if (listed.kept === true) return { unchanged: true }
  if (listed.failure !== undefined) {
    return { failure: { reason: listed.failure.reason, description: listed.failure.description } }
  }
  // each row's origin as the listing set it: this machine and user, its project
  const { user } = ProjectOrigin.localOrigin()
  const origins = listed.rows.flatMap((row): Array<readonly [string, StatsReport.Origin]> =>
    row.project === undefined || row.machine === undefined
      ? []
      : [[`${row.projectKey}/${row.sessionId}`, { machine: row.machine, user, project: row.project }]]
  )
  return { rows: listed.rows, origins, fingerprint: listed.digest ?? "" }
}
