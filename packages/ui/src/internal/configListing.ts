/**
 * The sessions list of a config directory as the page's server keeps it: the one plain listing
 * (`PlainListing.walkedSessions`: the session index and its cache under `$ACX_HOME/cache`), each
 * session with its origin (this machine and user, its project from its `cwd`), as rows in the
 * listing's order. It walks every project and parses the whole index cache (tens of MB at
 * 20 000 sessions): the server runs it in a worker thread (`offThread.ts`), so that no request
 * waits on it.
 */
import * as ConfigTree from "@acx/claude-code/ConfigTree"
import * as ListingRows from "@acx/claude-code/ListingRows"
import * as PlainListing from "@acx/claude-code/PlainListing"
import * as ProjectOrigin from "@acx/claude-code/ProjectOrigin"
import * as SessionIndexCache from "@acx/claude-code/SessionIndexCache"
import type * as StatsReport from "@acx/convert/StatsReport"

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

/** The listing, in the calling thread. */
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
