/**
 * `StoreStats`' cache (one file per store under `$ACX_HOME/cache`, per session its folds keyed by
 * the catalog's `mtime` and entry count) read without Effect, so the CLI's fast read path can
 * answer `acx stats --from` from it when every session is cached. `StoreStats` reads and writes
 * it through these functions.
 *
 * @since 0.3.0
 */
import * as StatsFold from "@acx/convert/StatsFold"
import type * as StatsReport from "@acx/convert/StatsReport"
import * as fs from "node:fs"
import * as path from "node:path"
import { fnv, timeZone } from "./internal/statsCache.js"
import * as StoreListing from "./StoreListing.js"
import type * as TranscriptStats from "./TranscriptStats.js"

/**
 * The time zone the folds cut days in, as the caches record it: a report made in another zone
 * is another report.
 *
 * @since 0.4.0
 * @category cache
 */
export const zone = (): string => timeZone()

/**
 * The cache file's format version.
 *
 * @since 0.3.0
 * @category cache
 */
export const CACHE_VERSION = 2

/**
 * @since 0.3.0
 * @category cache
 */
export interface CachedTranscript {
  readonly subpath: string
  readonly state: unknown
}

/**
 * One session's folds as cached, keyed by the catalog's `mtime` and entry count.
 *
 * @since 0.3.0
 * @category cache
 */
export interface CachedSession {
  readonly mtime: number
  readonly entries: number
  readonly transcripts: ReadonlyArray<CachedTranscript>
}

/**
 * @since 0.3.0
 * @category cache
 */
export interface CacheFile {
  readonly version: number
  readonly location: string
  readonly pricing: string
  readonly timeZone: string
  readonly sessions: { [key: string]: CachedSession }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Sessions in the config directory's order (projects, then sessions, by name): dollars are summed
 * in fold order, and floating-point sums differ in the last digit when the order does.
 *
 * @since 0.3.0
 * @category cache
 */
export const inDirectoryOrder = <A extends { readonly projectKey: string; readonly sessionId: string }>(
  sessions: ReadonlyArray<A>
): Array<A> => [...sessions].sort((a, b) => compare(a.projectKey, b.projectKey) || compare(a.sessionId, b.sessionId))

/**
 * The cache file of a store (named by its location) in `cacheDir`.
 *
 * @since 0.3.0
 * @category cache
 */
export const cacheFileOf = (cacheDir: string, location: string): string =>
  path.join(cacheDir, `store-stats-${fnv(location)}.json`)

/**
 * A session's key in the cache: `<projectKey>/<sessionId>`.
 *
 * @since 0.3.0
 * @category cache
 */
export const sessionKey = (session: { readonly projectKey: string; readonly sessionId: string }) =>
  `${session.projectKey}/${session.sessionId}`

const isCachedSession = (value: unknown): value is CachedSession => {
  if (typeof value !== "object" || value === null) return false
  const entry = value as { readonly [key: string]: unknown }
  return typeof entry["mtime"] === "number" && typeof entry["entries"] === "number" &&
    Array.isArray(entry["transcripts"]) &&
    entry["transcripts"].every((t: unknown) =>
      typeof t === "object" && t !== null && typeof (t as { subpath?: unknown }).subpath === "string"
    )
}

/**
 * The cached sessions of `file` made for this store, pricing and time zone; anything unexpected
 * (missing, unreadable, not JSON, another version, store, pricing or zone) is empty.
 *
 * @since 0.3.0
 * @category cache
 */
export const readCache = (file: string, location: string, pricing: string): { [key: string]: CachedSession } => {
  try {
    const json = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<CacheFile>
    if (
      json.version !== CACHE_VERSION || json.location !== location || json.pricing !== pricing ||
      json.timeZone !== timeZone() || typeof json.sessions !== "object" || json.sessions === null
    ) return {}
    const out: { [key: string]: CachedSession } = {}
    for (const [key, session] of Object.entries(json.sessions)) if (isCachedSession(session)) out[key] = session
    return out
  } catch {
    return {}
  }
}

/**
 * The folds of a cached session, unless one of its states is damaged (then it is folded again).
 *
 * @since 0.3.0
 * @category cache
 */
export const restored = (cached: CachedSession): Array<{ subpath: string; fold: StatsFold.FoldState }> | undefined => {
  const out: Array<{ subpath: string; fold: StatsFold.FoldState }> = []
  for (const transcript of cached.transcripts) {
    const fold = StatsFold.restore(transcript.state)
    if (fold === undefined) return undefined
    out.push({ subpath: transcript.subpath, fold })
  }
  return out
}

/**
 * A session's cached folds when the cache holds it as the catalog has it now (same `mtime` and
 * entry count, every state intact), else `undefined` (it is folded again).
 *
 * @since 0.3.0
 * @category cache
 */
export const reusable = (
  cached: { readonly [key: string]: CachedSession },
  session: { readonly projectKey: string; readonly sessionId: string; readonly mtime: number; readonly entries: number }
): Array<{ subpath: string; fold: StatsFold.FoldState }> | undefined => {
  const hit = cached[sessionKey(session)]
  return hit !== undefined && hit.mtime === session.mtime && hit.entries === session.entries ? restored(hit) : undefined
}

/**
 * A session's transcript folds as the report takes them, each named by its place in the store.
 *
 * @since 0.3.0
 * @category report
 */
export const fileFolds = (
  location: string,
  session: { readonly projectKey: string; readonly sessionId: string },
  transcripts: ReadonlyArray<{ readonly subpath: string; readonly fold: StatsFold.FoldState }>
): Array<StatsReport.FileFold> =>
  transcripts.map(({ fold, subpath }) => ({
    file: StoreListing.locationOf(location, {
      projectKey: session.projectKey,
      sessionId: session.sessionId,
      ...(subpath === "" ? {} : { subpath })
    }),
    projectKey: session.projectKey,
    sessionId: session.sessionId,
    fold
  }))

/**
 * The run a store's folds make (`TranscriptStats.StatsRun`: nothing skipped, no bytes or workers,
 * `counts` of transcripts from the cache and folded from the store).
 *
 * @since 0.3.0
 * @category report
 */
export const storeRun = (
  folds: Array<StatsReport.FileFold>,
  counts: { readonly cached: number; readonly folded: number },
  cacheWarning: string | undefined
): TranscriptStats.StatsRun => ({
  folds,
  skipped: [],
  files: { cached: counts.cached, appended: 0, folded: counts.folded },
  bytesRead: 0,
  workers: 0,
  cacheWarning,
  malformedAt: {}
})
