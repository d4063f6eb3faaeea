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
import { paths } from "@acx/environment/AcxHome"
import type * as SessionStore from "@acx/session-store/SessionStore"
import type * as StoreCatalog from "@acx/session-store/StoreCatalog"
import * as Effect from "effect/Effect"
import type { ClaudeProjectsError } from "./ClaudeProjectsError.js"
import { timeZone, writeCache } from "./internal/statsCache.js"
import type * as SessionStats from "./SessionStats.js"
import * as StoreProjects from "./StoreProjects.js"
import * as StoreStatsCache from "./StoreStatsCache.js"
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
  /**
   * The folds of the last calls kept in memory ({@link makeMemo}), for a process that asks again
   * and again (the web page over a store): a session unchanged since is neither read nor restored
   * from the cache file, and when none changed the file is not read at all.
   *
   * @since 0.4.0
   */
  readonly memo?: StoreStatsMemo | undefined
}

type Transcripts = ReadonlyArray<{ readonly subpath: string; readonly fold: StatsFold.FoldState }>

/**
 * Folds kept in memory between calls of {@link foldStats}, per session under the file cache's key
 * (the catalog's `mtime` and entry count), for one pricing table and time zone. The folds are
 * shared by the calls' results: a report reads them, never changes them.
 *
 * @since 0.4.0
 * @category models
 */
export interface StoreStatsMemo {
  key: string | undefined
  readonly sessions: Map<
    string,
    { readonly mtime: number; readonly entries: number; readonly transcripts: Transcripts }
  >
  /**
   * The last result and the catalog list it was made from: the same list again (a catalog that
   * keeps its list hands out the same array while nothing changed) is the same result, the same
   * object, so a caller can keep what it computed from it.
   */
  last?: {
    readonly key: string
    readonly listed: ReadonlyArray<StoreCatalog.StoredSession>
    readonly result: StoreStatsFolds
  } | undefined
}

/**
 * An empty memo.
 *
 * @since 0.4.0
 * @category constructors
 */
export const makeMemo = (): StoreStatsMemo => ({ key: undefined, sessions: new Map() })

// The memo's folds of a session as the catalog lists it now, if it holds them.
const remembered = (memo: StoreStatsMemo | undefined, session: StoreCatalog.StoredSession) => {
  const hit = memo?.sessions.get(StoreStatsCache.sessionKey(session))
  return hit !== undefined && hit.mtime === session.mtime && hit.entries === session.entries
    ? hit.transcripts
    : undefined
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
    const subpaths = StoreProjects.subagentsOf(
      yield* options.store.listSubkeys({ projectKey, sessionId }).pipe(Effect.mapError(storeFailure("foldStats")))
    ).map((agent) => agent.subpath)
    const subagents = yield* Effect.forEach(subpaths, (subpath) =>
      options.store.load({ projectKey, sessionId, subpath }).pipe(
        Effect.mapError(storeFailure("foldStats")),
        Effect.map((stored) => ({ subpath, fold: foldEntries(stored ?? [], { ...context, kind: "subagent" }) }))
      ))
    return [{ subpath: "", fold: foldEntries(main ?? [], { ...context, kind: "main" }) }, ...subagents]
  })

/**
 * The folds of a store's sessions, with the catalog's list they were folded from (what a report
 * made of them may be kept under: `StoreCatalogSql.listDigest`).
 *
 * @since 0.4.0
 * @category models
 */
export interface StoreStatsFolds extends SessionStats.StatsFolds {
  readonly listed: ReadonlyArray<StoreCatalog.StoredSession>
}

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
): Effect.Effect<StoreStatsFolds, ClaudeProjectsError | PricingFile.PricingError> =>
  Effect.gen(function*() {
    const pricing = options.pricing ?? (yield* TranscriptStats.loadPricing())
    const fingerprint = Pricing.fingerprint(pricing)
    const { memo } = options
    const memoKey = `${fingerprint}/${timeZone()}`
    if (memo !== undefined && memo.key !== memoKey) {
      memo.sessions.clear()
      memo.key = memoKey
    }
    const listed = yield* options.store.catalog.listSessions({
      ...(options.projectKey === undefined ? {} : { projectKey: options.projectKey }),
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId })
    }).pipe(Effect.mapError(storeFailure("foldStats")))
    const lastKey = `${memoKey}/${options.projectKey ?? ""}/${options.sessionId ?? ""}`
    if (memo?.last !== undefined && memo.last.listed === listed && memo.last.key === lastKey) return memo.last.result
    const sessions = StoreStatsCache.inDirectoryOrder(listed)
    const counts = { cached: 0, folded: 0 }
    const filesOf = (session: StoreCatalog.StoredSession, transcripts: Transcripts) =>
      StoreStatsCache.fileFolds(options.location, session, transcripts)
    // every session as the memo holds it: the cache file was written when they were folded
    if (memo !== undefined && sessions.every((session) => remembered(memo, session) !== undefined)) {
      const perSession = sessions.map((session) => {
        const transcripts = remembered(memo, session)!
        counts.cached += transcripts.length
        return filesOf(session, transcripts)
      })
      const result = { pricing, run: StoreStatsCache.storeRun(perSession.flat(), counts, undefined), listed }
      memo.last = { key: lastKey, listed, result }
      return result
    }
    const cacheDir = options.cacheDir === undefined ? paths().cache : options.cacheDir
    const cacheFile = cacheDir === null ? undefined : StoreStatsCache.cacheFileOf(cacheDir, options.location)
    const cached = cacheFile === undefined ? {} : StoreStatsCache.readCache(cacheFile, options.location, fingerprint)
    const context = { pricing, dayOf: StatsFold.localDayOf() }
    const folded = yield* Effect.forEach(sessions, (session) => {
      const reused = remembered(memo, session) ?? StoreStatsCache.reusable(cached, session)
      const folds = reused === undefined ? foldSession(options, session, context) : Effect.succeed(reused)
      return Effect.map(folds, (transcripts) => {
        counts[reused === undefined ? "folded" : "cached"] += transcripts.length
        memo?.sessions.set(StoreStatsCache.sessionKey(session), {
          mtime: session.mtime,
          entries: session.entries,
          transcripts
        })
        return { session, transcripts }
      })
    }, { concurrency: 4 })
    const complete = options.projectKey === undefined && options.sessionId === undefined
    if (memo !== undefined && complete && memo.sessions.size > sessions.length) {
      // sessions deleted since: forgotten
      const listedKeys = new Set(sessions.map(StoreStatsCache.sessionKey))
      for (const key of memo.sessions.keys()) if (!listedKeys.has(key)) memo.sessions.delete(key)
    }
    let cacheWarning: string | undefined
    if (
      cacheFile !== undefined && (counts.folded > 0 || (complete && Object.keys(cached).length !== sessions.length))
    ) {
      const fresh: { [key: string]: StoreStatsCache.CachedSession } = {}
      for (const { session, transcripts } of folded) {
        fresh[StoreStatsCache.sessionKey(session)] = {
          mtime: session.mtime,
          entries: session.entries,
          transcripts: transcripts.map(({ fold, subpath }) => ({ subpath, state: StatsFold.serialise(fold) }))
        }
      }
      const kept = complete ? fresh : { ...cached, ...fresh }
      cacheWarning = writeCache(cacheFile, {
        version: StoreStatsCache.CACHE_VERSION,
        location: options.location,
        pricing: fingerprint,
        timeZone: timeZone(),
        sessions: kept
      })
    }
    const perSession = folded.map(({ session, transcripts }) => filesOf(session, transcripts))
    return { pricing, run: StoreStatsCache.storeRun(perSession.flat(), counts, cacheWarning), listed }
  })
