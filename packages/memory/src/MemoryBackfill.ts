/**
 * `acx memory backfill`: the memory from sessions Claude Code ran before (or without) acx's
 * hooks. Each past session's transcript gives the hook calls Claude Code would have made
 * (`TranscriptHooks`, through the live hook's `HookCapture.capture`: the same privacy rules), which
 * are queued as the hooks queue them and then distilled:
 * - `local` (the default): here, without a model, by `LocalObservations` as the worker does
 *   without one; the session is marked local, so a worker that meets its events does the same;
 * - `model`: by the worker, run here session after session while the daily budget lasts; the run
 *   stops at the budget, and a later run goes on from there.
 *
 * Exactly once, per session: its events are queued and its `memory_backfill` row written in one
 * transaction, its batches stored and its events marked done in one transaction each (the
 * worker's `completeBatch`), and the row is `done` once no event of it waits. A rerun skips what
 * is marked and finishes what a killed run left `recorded`. A session the hooks recorded live is
 * left as they recorded it.
 *
 * Where sessions come from is a parameter ({@link Source}): the CLI gives a Claude Code config
 * directory's transcripts.
 *
 * @since 0.3.0
 */
import * as AcxHome from "@acx/environment/AcxHome"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Run from "./internal/backfillRun.js"
import * as BackfillStore from "./internal/backfillStore.js"
import * as Sqlite from "./internal/sqlite.js"
import type { BackfillOptions, BackfillReport } from "./MemoryBackfillOptions.js"
import * as MemoryConfig from "./MemoryConfig.js"
import type { MemoryError } from "./MemoryError.js"

export type * from "./MemoryBackfillOptions.js"

/**
 * The reason a backfilled session is distilled without a model, kept on the session.
 *
 * @since 0.3.0
 * @category constants
 */
export const LOCAL_REASON: string = Run.LOCAL_REASON

/**
 * Distils a session's pending events without a model, as the worker does without one: batches of
 * `batchSize` become `LocalObservations`, each run of checkpoints a summary of the events since
 * the last one; each stored with its events marked done in one transaction, dated at its last
 * event (the transcript's time). Events another worker took meanwhile are left to it.
 *
 * @since 0.3.0
 * @category distilling
 */
export const distilLocally = Run.distilLocally

/**
 * Runs a backfill (see the module documentation).
 *
 * @since 0.3.0
 * @category running
 */
export const run = <E>(
  options: BackfillOptions<E>
): Effect.Effect<BackfillReport, E | MemoryError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const home = options.home ?? AcxHome.acxHome()
    const config = options.config ?? MemoryConfig.load(home).config
    const dryRun = options.dryRun === true
    const listed = (yield* options.source.sessions).filter((session) =>
      options.since === undefined || session.lastActivity >= options.since
    )
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => Sqlite.open(MemoryConfig.paths(home).database),
        catch: Run.databaseError("opening the memory")
      }),
      (db) => Effect.sync(() => db.close())
    )
    const r: Run.RunState<E> = {
      options,
      config,
      db,
      counts: {
        backfilled: 0,
        resumed: 0,
        already: 0,
        live: 0,
        empty: 0,
        excluded: 0,
        waiting: 0,
        unreadable: 0,
        events: 0
      },
      observations: 0,
      summaries: 0,
      total: listed.length,
      done: 0,
      busy: false
    }
    // what a killed run left queued comes first
    const wanted = new Set(listed.map((session) => session.sessionId))
    const unfinished = dryRun ?
      [] :
      BackfillStore.unfinished(db).filter((row) =>
        wanted.has(row.sessionId) && (options.project === undefined || row.project === options.project)
      )
    // the sessions to read: not marked (a live one is told apart when it is queued)
    const marks = BackfillStore.marked(db)
    const scanned = yield* Run.scan(r, listed, marks)
    const report = (stopped: string | undefined, declined: boolean) =>
      Effect.map(Clock.currentTimeMillis, (now): BackfillReport => ({
        mode: options.mode,
        dryRun,
        sessions: scanned.inScope.length,
        ...r.counts,
        observations: r.observations,
        summaries: r.summaries,
        estimate: scanned.estimate,
        stopped,
        declined,
        elapsedMs: now - started
      }))
    if (dryRun) return yield* report(undefined, false)
    const estimate = scanned.estimate
    if (options.mode === "model" && estimate !== undefined && estimate.calls > 0 && options.confirm !== undefined) {
      if (!(yield* options.confirm(estimate))) return yield* report(undefined, true)
    }
    r.total = scanned.inScope.length
    const stopped = yield* Run.backfill(r, unfinished, marks, scanned)
    return yield* report(stopped, false)
  }).pipe(Effect.scoped, Effect.withSpan("MemoryBackfill.run"))

/** Counts a session's outcome and tells the caller. */
