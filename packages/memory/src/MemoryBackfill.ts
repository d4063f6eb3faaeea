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
import { plural } from "@acx/convert/Plural"
import * as AcxHome from "@acx/environment/AcxHome"
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as BackfillEstimate from "./BackfillEstimate.js"
import * as BackfillStore from "./internal/backfillStore.js"
import * as Sqlite from "./internal/sqlite.js"
import * as LocalObservations from "./LocalObservations.js"
import * as MemoryConfig from "./MemoryConfig.js"
import { MemoryError } from "./MemoryError.js"
import * as MemoryStore from "./MemoryStore.js"
import * as TranscriptHooks from "./TranscriptHooks.js"

/**
 * A past session as a source lists it, before its transcript is read.
 *
 * @since 0.3.0
 * @category models
 */
export interface PastSession {
  readonly sessionId: string
  readonly transcriptPath: string
  /** The directory Claude Code ran in, when the listing knows it. */
  readonly project: string | undefined
  /** Its last activity (epoch ms). */
  readonly lastActivity: number
}

/**
 * Where past sessions come from: a Claude Code config directory today, any store later.
 *
 * @since 0.3.0
 * @category models
 */
export interface Source<E> {
  /** Says where, in the backfill's marks (`config:/home/me/.claude`). */
  readonly name: string
  readonly sessions: Effect.Effect<ReadonlyArray<PastSession>, E>
  /** A session's transcript entries, in order. */
  readonly entries: (session: PastSession) => Effect.Effect<ReadonlyArray<unknown>, E>
}

/**
 * The progress of a run, one call per session.
 *
 * @since 0.3.0
 * @category models
 */
export interface Progress {
  readonly done: number
  readonly total: number
  readonly sessionId: string
  readonly outcome: SessionOutcome
  /** `unreadable`: why its transcript could not be read. */
  readonly problem?: string | undefined
}

/**
 * What became of one session.
 *
 * @since 0.3.0
 * @category models
 */
export type SessionOutcome =
  | "backfilled"
  | "resumed"
  | "already"
  | "live"
  | "empty"
  | "excluded"
  | "waiting"
  | "unreadable"

/**
 * @since 0.3.0
 * @category models
 */
export interface BackfillOptions<E> {
  readonly source: Source<E>
  readonly mode: "local" | "model"
  /** Only sessions run in this directory (absolute). */
  readonly project?: string | undefined
  /** Only sessions active at or after this time (epoch ms). */
  readonly since?: number | undefined
  /** Count and estimate; write nothing. */
  readonly dryRun?: boolean | undefined
  /** acx's home (default `ACX_HOME`, else `~/.acx`). */
  readonly home?: string | undefined
  readonly config?: MemoryConfig.MemoryConfig | undefined
  /** Model mode, before anything is spent: go on with this estimate? */
  readonly confirm?: ((estimate: BackfillEstimate.Estimate) => Effect.Effect<boolean, E>) | undefined
  /**
   * Model mode: distils what is queued (the worker, run until its queue is empty); `"busy"` when
   * another worker runs (it distils them instead).
   */
  readonly distil?: Effect.Effect<"done" | "busy", MemoryError, SqlClient.SqlClient> | undefined
  readonly onProgress?: ((progress: Progress) => Effect.Effect<void>) | undefined
}

/**
 * What a run did.
 *
 * @since 0.3.0
 * @category models
 */
export interface BackfillReport {
  readonly mode: "local" | "model"
  readonly dryRun: boolean
  /** Sessions the filters kept. */
  readonly sessions: number
  /** Distilled by this run (resumed ones included). */
  readonly backfilled: number
  /** Left `recorded` by a killed run, finished by this one. */
  readonly resumed: number
  /** Marked by an earlier run. */
  readonly already: number
  /** Recorded live by the hooks: left alone. */
  readonly live: number
  /** With nothing the hooks would have recorded. */
  readonly empty: number
  /** In a project of `excludeProjects`: not marked, so a run after the exclusion is lifted reads them. */
  readonly excluded: number
  /** Queued for the model, not distilled yet (another worker has them, or they wait for a retry). */
  readonly waiting: number
  /** Whose transcript could not be read (gone since the listing, unreadable): not marked, a later run tries again. */
  readonly unreadable: number
  /** Events queued by this run. */
  readonly events: number
  readonly observations: number
  readonly summaries: number
  /** Model mode (and dry runs): what the sessions not yet marked would cost. */
  readonly estimate: BackfillEstimate.Estimate | undefined
  /** Model mode: why the run stopped before the end (the daily budget), in one line. */
  readonly stopped: string | undefined
  /** Model mode: the estimate was declined. */
  readonly declined: boolean
  readonly elapsedMs: number
}

const databaseError = (what: string) => (cause: unknown) =>
  cause instanceof MemoryError ? cause : new MemoryError({
    reason: "Database",
    description: `${what}: ${(cause instanceof Error ? cause.message : String(cause)).split("\n")[0]}`,
    cause
  })

/**
 * The reason a backfilled session is distilled without a model, kept on the session.
 *
 * @since 0.3.0
 * @category constants
 */
export const LOCAL_REASON = "backfilled locally (acx memory backfill --mode local)"

/**
 * Distils a session's pending events without a model, as the worker does without one: batches of
 * `batchSize` become `LocalObservations`, each run of checkpoints a summary of the events since
 * the last one; each stored with its events marked done in one transaction, dated at its last
 * event (the transcript's time). Events another worker took meanwhile are left to it.
 *
 * @since 0.3.0
 * @category distilling
 */
export const distilLocally = Effect.fn("MemoryBackfill.distilLocally")(function*(
  sessionId: string,
  config: MemoryConfig.MemoryConfig
) {
  const session = yield* MemoryStore.session(sessionId)
  let observations = 0
  let summaries = 0
  if (session === undefined) return { observations, summaries }
  // bounded: each round marks at least one event done, or another worker did
  for (let round = 0; round < 1_000_000; round++) {
    const events = yield* MemoryStore.readyEvents(sessionId, Number.MAX_SAFE_INTEGER, config.batchSize)
    if (events.length === 0) break
    const unit = MemoryStore.nextUnit(events)
    const at = unit.events.at(-1)!.createdAt
    const base = { sessionId, project: session.project, eventIds: unit.events.map((event) => event.id) }
    const stored = unit._tag === "Batch"
      ? { observations: LocalObservations.observe(session.project, unit.events), summary: undefined }
      : {
        observations: [],
        summary: LocalObservations.summarise(
          session.project,
          yield* MemoryStore.eventsSinceSummary(sessionId, unit.events[0]!.id),
          LOCAL_REASON
        )
      }
    const outcome = yield* MemoryStore.completeBatch({ ...base, ...stored, source: "local", ledger: [] }, at).pipe(
      Effect.either
    )
    if (outcome._tag === "Left") {
      // a worker took some of them between the read and the write: it distils them the same way
      const still = yield* MemoryStore.readyEvents(sessionId, Number.MAX_SAFE_INTEGER, 1)
      if (still[0]?.id === unit.events[0]!.id) return yield* outcome.left
      continue
    }
    observations += stored.observations.length
    if (stored.summary !== undefined) summaries++
  }
  yield* MemoryStore.setSessionStatus(sessionId, "completed")
  return { observations, summaries }
})

const spentReason = (config: MemoryConfig.MemoryConfig, spend: MemoryStore.DaySpend): string | undefined => {
  if (config.dailyBudgetUsd !== null && spend.costUsd >= config.dailyBudgetUsd) {
    return `the daily budget of $${config.dailyBudgetUsd} is spent ($${spend.costUsd.toFixed(4)} on ${spend.day})`
  }
  if (config.dailyBudgetTokens !== null && spend.tokens >= config.dailyBudgetTokens) {
    return `the daily budget of ${config.dailyBudgetTokens} tokens is spent (${spend.tokens} on ${spend.day})`
  }
  return undefined
}

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
        catch: databaseError("opening the memory")
      }),
      (db) => Effect.sync(() => db.close())
    )
    const counts = {
      backfilled: 0,
      resumed: 0,
      already: 0,
      live: 0,
      empty: 0,
      excluded: 0,
      waiting: 0,
      unreadable: 0,
      events: 0
    }
    let observations = 0
    let summaries = 0
    let total = listed.length
    let done = 0
    const progress = (sessionId: string, outcome: SessionOutcome, problem?: string) =>
      Effect.suspend(() => {
        done++
        counts[outcome]++
        if (outcome === "resumed") counts.backfilled++
        return options.onProgress?.({ done, total, sessionId, outcome, problem }) ?? Effect.void
      })
    // another worker holds the lock: it distils what is queued, with its own handling of the budget
    let busy = false
    const distil = (sessionId: string) =>
      Effect.gen(function*() {
        if (options.mode === "model" && options.distil !== undefined) {
          if ((yield* options.distil) === "busy") {
            busy = true
            return false
          }
        } else {
          yield* distilLocally(sessionId, config)
        }
        const now = yield* Clock.currentTimeMillis
        return yield* Effect.try({
          try: () => {
            const finished = BackfillStore.finish(db, sessionId, now)
            // counted from the rows, whoever distilled them (here, or the worker with the model)
            const made = BackfillStore.made(db, sessionId)
            observations += made.observations
            summaries += made.summaries
            return finished
          },
          catch: databaseError("marking a session done")
        })
      })

    // what a killed run left queued comes first
    const wanted = new Set(listed.map((session) => session.sessionId))
    const unfinished = dryRun ?
      [] :
      BackfillStore.unfinished(db).filter((row) =>
        wanted.has(row.sessionId) && (options.project === undefined || row.project === options.project)
      )
    // the sessions to read: not marked (a live one is told apart when it is queued)
    const marks = BackfillStore.marked(db)
    /** A session's transcript read and turned into captures (read again when needed: nothing is held across sessions). */
    const load = (session: PastSession) =>
      options.source.entries(session).pipe(
        Effect.map((entries) => {
          const project = session.project ?? TranscriptHooks.projectOf(entries)
          return {
            _tag: "Loaded" as const,
            project,
            captures: TranscriptHooks.captures({ ...session, cwd: project }, entries, config, session.lastActivity)
          }
        }),
        // one transcript that cannot be read (deleted since the listing) does not stop the others
        Effect.catchAll((error) =>
          Effect.succeed({
            _tag: "Unreadable" as const,
            problem: (error as { readonly message?: unknown } | null)?.message?.toString() ?? String(error)
          })
        )
      )
    const unreadable = new Map<string, string>()
    const sized = options.mode === "model" || dryRun
    const sizes: Array<ReadonlyArray<BackfillEstimate.EventSize>> = []
    const candidates: Array<PastSession> = []
    for (const session of listed) {
      if (marks.has(session.sessionId)) continue
      const known = session.project !== undefined && !sized
      if (known && options.project !== undefined && session.project !== options.project) continue
      if (known) {
        candidates.push(session)
        continue
      }
      const loaded = yield* load(session)
      if (loaded._tag === "Unreadable") {
        unreadable.set(session.sessionId, loaded.problem)
        candidates.push(session)
        continue
      }
      if (options.project !== undefined && loaded.project !== options.project) continue
      candidates.push(session)
      sizes.push(BackfillEstimate.sizesOf(loaded.captures.map((timed) => timed.capture)))
    }
    const candidateIds = new Set(candidates.map((session) => session.sessionId))
    const inScope = listed.filter((session) =>
      candidateIds.has(session.sessionId) ||
      (marks.has(session.sessionId) &&
        (options.project === undefined || marks.get(session.sessionId) === options.project))
    )
    const estimate = sized ? BackfillEstimate.estimate(sizes, config) : undefined
    const report = (stopped: string | undefined, declined: boolean) =>
      Effect.map(Clock.currentTimeMillis, (now): BackfillReport => ({
        mode: options.mode,
        dryRun,
        sessions: inScope.length,
        ...counts,
        observations,
        summaries,
        estimate,
        stopped,
        declined,
        elapsedMs: now - started
      }))
    if (dryRun) return yield* report(undefined, false)
    if (options.mode === "model" && estimate !== undefined && estimate.calls > 0 && options.confirm !== undefined) {
      if (!(yield* options.confirm(estimate))) return yield* report(undefined, true)
    }
    total = inScope.length
    const budgetStop = Effect.gen(function*() {
      if (options.mode !== "model") return undefined
      if (busy) {
        return `stopped: a memory worker is running; it distils the ${
          plural(counts.waiting, "session")
        } queued so far; ${total - done} left for a later run (acx memory backfill goes on from here)`
      }
      const reason = spentReason(config, yield* MemoryStore.spendOn(yield* Clock.currentTimeMillis))
      return reason === undefined
        ? undefined
        : `stopped: ${reason}; ${counts.backfilled} of ${total} sessions backfilled, ${
          total - done
        } left for a later run (acx memory backfill goes on from here)`
    })
    for (const row of unfinished) {
      const stop = yield* budgetStop
      if (stop !== undefined) return yield* report(stop, false)
      if (options.mode === "local") {
        yield* Effect.try({
          try: () => BackfillStore.setLocal(db, row.sessionId, LOCAL_REASON),
          catch: databaseError("marking a session local")
        })
      }
      const finished = yield* distil(row.sessionId)
      yield* progress(row.sessionId, finished ? "resumed" : "waiting")
    }
    const resumedIds = new Set(unfinished.map((row) => row.sessionId))
    for (const session of inScope) {
      if (marks.has(session.sessionId) && !resumedIds.has(session.sessionId)) {
        yield* progress(session.sessionId, "already")
      }
    }
    for (const session of candidates) {
      const stop = yield* budgetStop
      if (stop !== undefined) return yield* report(stop, false)
      const loaded = unreadable.has(session.sessionId)
        ? { _tag: "Unreadable" as const, problem: unreadable.get(session.sessionId)! }
        : yield* load(session)
      if (loaded._tag === "Unreadable") {
        yield* progress(session.sessionId, "unreadable", loaded.problem)
        continue
      }
      const { captures, project } = loaded
      if (project !== undefined && MemoryConfig.isExcluded(config, project)) {
        yield* progress(session.sessionId, "excluded")
        continue
      }
      const now = yield* Clock.currentTimeMillis
      const queued = yield* Effect.try({
        try: () =>
          BackfillStore.queue(db, {
            sessionId: session.sessionId,
            project: project ?? "",
            source: options.source.name,
            mode: options.mode,
            localReason: options.mode === "local" ? LOCAL_REASON : undefined,
            now
          }, captures),
        catch: databaseError(`queueing session ${session.sessionId}`)
      })
      if (queued._tag !== "Queued") {
        yield* progress(session.sessionId, queued._tag === "Live" ? "live" : "already")
        continue
      }
      counts.events += queued.events
      if (queued.events === 0) {
        yield* progress(session.sessionId, "empty")
        continue
      }
      const finished = yield* distil(session.sessionId)
      yield* progress(session.sessionId, finished ? "backfilled" : "waiting")
    }
    const stop = yield* budgetStop
    if (busy && stop !== undefined) return yield* report(stop, false)
    return yield* report(undefined, false)
  }).pipe(Effect.scoped, Effect.withSpan("MemoryBackfill.run"))
