/**
 * The statistics of a session store, as `acx stats --from` and the web page over a store compute
 * them: each stored transcript (a session's main key and its subagents' subpaths) folded with the
 * same fold as a transcript file (`@acx/convert/StatsFold`), so a store and the config directory
 * it was synced from give the same report for the same entries.
 *
 * The folds are cached under `$ACX_HOME/cache` (owner-only), one file per store, per session keyed
 * by the catalog's `mtime` (the store clock's last append to any of the session's transcripts,
 * strictly increasing per store) and entry count: a session nothing was appended to since is not
 * read again; one that changed is folded again whole. Like the files' cache, it records the
 * pricing table's fingerprint and the time zone (days are local), and a cache that cannot be read
 * is ignored and rewritten, never an error.
 *
 * @since 0.3.0
 */
import * as Pricing from "@acx/convert/Pricing"
import type * as PricingFile from "@acx/convert/PricingFile"
import * as StatsFold from "@acx/convert/StatsFold"
import type * as StatsReport from "@acx/convert/StatsReport"
import { paths } from "@acx/environment/AcxHome"
import type * as SessionStore from "@acx/session-store/SessionStore"
import type * as StoreCatalog from "@acx/session-store/StoreCatalog"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { ClaudeProjectsError } from "./ClaudeProjectsError.js"
import { fnv, timeZone, writeCache } from "./internal/statsCache.js"
import type * as SessionStats from "./SessionStats.js"
import * as StoreProjects from "./StoreProjects.js"
import * as TranscriptStats from "./TranscriptStats.js"

/**
 * @since 0.3.0
 * @category models
 */
export interface StoreStatsOptions {
  /** The store and its catalog. */
  readonly store: SessionStore.SessionStore & StoreCatalog.WithCatalog
  /** How the store is named (`DatabaseSpec.display`); also what its cache file is named after. */
  readonly location: string
  /** One project's sessions (a project key), else every project's. */
  readonly projectKey?: string | undefined
  /** One session (with `projectKey`): the session page's header. */
  readonly sessionId?: string | undefined
  /** Default: the built-in table with `$ACX_HOME/pricing.json` applied. */
  readonly pricing?: Pricing.PricingTable | undefined
  /** Default `$ACX_HOME/cache`; `null`: no cache. */
  readonly cacheDir?: string | null | undefined
}

const CACHE_VERSION = 1

interface CachedTranscript {
  readonly subpath: string
  readonly state: unknown
}

interface CachedSession {
  readonly mtime: number
  readonly entries: number
  readonly transcripts: ReadonlyArray<CachedTranscript>
}

interface CacheFile {
  readonly version: number
  readonly location: string
  readonly pricing: string
  readonly timeZone: string
  readonly sessions: { [key: string]: CachedSession }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

const sessionKey = (session: { readonly projectKey: string; readonly sessionId: string }) =>
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

// Anything unexpected (missing, unreadable, not JSON, another version, store, pricing or zone) is empty.
const readCache = (file: string, location: string, pricing: string): { [key: string]: CachedSession } => {
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

// The folds of a cached session, unless one of its states is damaged (then it is folded again).
const restored = (cached: CachedSession): Array<{ subpath: string; fold: StatsFold.FoldState }> | undefined => {
  const out: Array<{ subpath: string; fold: StatsFold.FoldState }> = []
  for (const transcript of cached.transcripts) {
    const fold = StatsFold.restore(transcript.state)
    if (fold === undefined) return undefined
    out.push({ subpath: transcript.subpath, fold })
  }
  return out
}

/**
 * Stored entries folded as a transcript file's lines are: every stored value but a subagent's
 * `agent_metadata` sidecar.
 *
 * @since 0.3.0
 * @category statistics
 */
export const foldEntries = (
  stored: ReadonlyArray<unknown>,
  context: StatsFold.FoldContext
): StatsFold.FoldState => {
  const state = StatsFold.empty()
  for (const entry of stored) {
    if ((entry as { readonly type?: unknown } | null)?.type === StoreProjects.AGENT_METADATA) continue
    StatsFold.foldEntry(state, entry, context)
  }
  return state
}

const storeFailure = StoreProjects.storeError

// A session's transcripts read from the store and folded: the main key, then its subagents.
const foldSession = (
  options: StoreStatsOptions,
  session: StoreCatalog.StoredSession,
  context: Omit<StatsFold.FoldContext, "kind">
) =>
  Effect.gen(function*() {
    const { projectKey, sessionId } = session
    const main = yield* options.store.load({ projectKey, sessionId }).pipe(Effect.mapError(storeFailure("foldStats")))
    const subpaths = (yield* options.store.listSubkeys({ projectKey, sessionId }).pipe(
      Effect.mapError(storeFailure("foldStats"))
    )).filter((subpath) => StoreProjects.agentIdOf(subpath) !== undefined).sort()
    const subagents = yield* Effect.forEach(subpaths, (subpath) =>
      options.store.load({ projectKey, sessionId, subpath }).pipe(
        Effect.mapError(storeFailure("foldStats")),
        Effect.map((stored) => ({ subpath, fold: foldEntries(stored ?? [], { ...context, kind: "subagent" }) }))
      ))
    return [{ subpath: "", fold: foldEntries(main ?? [], { ...context, kind: "main" }) }, ...subagents]
  })

/**
 * Every stored session (of one project, or all; or one session) folded once, with the pricing
 * it was priced with: the input of `SessionStats.reportStats`, as `SessionStats.foldStats` gives
 * for a config directory. `run.files` counts transcripts: `cached` from the cache, `folded` read
 * from the store.
 *
 * @since 0.3.0
 * @category statistics
 */
export const foldStats = (
  options: StoreStatsOptions
): Effect.Effect<SessionStats.StatsFolds, ClaudeProjectsError | PricingFile.PricingError> =>
  Effect.gen(function*() {
    const pricing = options.pricing ?? (yield* TranscriptStats.loadPricing())
    const fingerprint = Pricing.fingerprint(pricing)
    const cacheDir = options.cacheDir === undefined ? paths().cache : options.cacheDir
    const cacheFile = cacheDir === null
      ? undefined
      : path.join(cacheDir, `store-stats-${fnv(options.location)}.json`)
    const cached = cacheFile === undefined ? {} : readCache(cacheFile, options.location, fingerprint)
    const listed = yield* options.store.catalog.listSessions({
      ...(options.projectKey === undefined ? {} : { projectKey: options.projectKey }),
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId })
    }).pipe(Effect.mapError(storeFailure("foldStats")))
    // in the config directory's order (projects, then sessions, by name): dollars are summed in
    // fold order, and floating-point sums differ in the last digit when the order does
    const sessions = [...listed].sort((a, b) =>
      compare(a.projectKey, b.projectKey) || compare(a.sessionId, b.sessionId)
    )
    const context = { pricing, dayOf: StatsFold.localDayOf() }
    const counts = { cached: 0, folded: 0 }
    const fresh: { [key: string]: CachedSession } = {}
    const perSession = yield* Effect.forEach(sessions, (session) => {
      const key = sessionKey(session)
      const hit = cached[key]
      const reused = hit !== undefined && hit.mtime === session.mtime && hit.entries === session.entries
        ? restored(hit)
        : undefined
      const folds = reused === undefined ? foldSession(options, session, context) : Effect.succeed(reused)
      return Effect.map(folds, (transcripts) => {
        counts[reused === undefined ? "folded" : "cached"] += transcripts.length
        fresh[key] = {
          mtime: session.mtime,
          entries: session.entries,
          transcripts: transcripts.map(({ fold, subpath }) => ({ subpath, state: StatsFold.serialise(fold) }))
        }
        return transcripts.map(({ fold, subpath }): StatsReport.FileFold => ({
          file: StoreProjects.locationOf(options.location, {
            projectKey: session.projectKey,
            sessionId: session.sessionId,
            ...(subpath === "" ? {} : { subpath })
          }),
          projectKey: session.projectKey,
          sessionId: session.sessionId,
          fold
        }))
      })
    }, { concurrency: 4 })
    const complete = options.projectKey === undefined && options.sessionId === undefined
    let cacheWarning: string | undefined
    if (
      cacheFile !== undefined && (counts.folded > 0 || (complete && Object.keys(cached).length !== sessions.length))
    ) {
      const kept = complete ? fresh : { ...cached, ...fresh }
      cacheWarning = writeCache(cacheFile, {
        version: CACHE_VERSION,
        location: options.location,
        pricing: fingerprint,
        timeZone: timeZone(),
        sessions: kept
      })
    }
    return {
      pricing,
      run: {
        folds: perSession.flat(),
        skipped: [],
        files: { cached: counts.cached, appended: 0, folded: counts.folded },
        bytesRead: 0,
        workers: 0,
        cacheWarning,
        malformedAt: {}
      }
    }
  })
