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
import type Database from "better-sqlite3"
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

type Counts = { -readonly [K in SessionOutcome | "events"]: number }

/** One run's state: what it was asked, the memory database, and the counts so far. */
interface RunState<E> {
  readonly options: BackfillOptions<E>
  readonly config: MemoryConfig.MemoryConfig
  readonly db: Database.Database
  readonly counts: Counts
  observations: number
  summaries: number
  total: number
  done: number
  /** Another worker holds the lock: it distils what is queued, with its own handling of the budget. */
  busy: boolean
}

/** What the run reads: the sessions to queue, and which sessions the run speaks of. */
interface Scan {
  readonly candidates: ReadonlyArray<PastSession>
  /** The candidates whose transcript could not be read, with the problem. */
  readonly unreadable: ReadonlyMap<string, string>
  /** The listed sessions in scope: the candidates and those already marked. */
  readonly inScope: ReadonlyArray<PastSession>
  readonly estimate: BackfillEstimate.Estimate | undefined
}

type Loaded =
  | {
    readonly _tag: "Loaded"
    readonly project: string | undefined
    readonly captures: ReturnType<typeof TranscriptHooks.captures>
  }
  | { readonly _tag: "Unreadable"; readonly problem: string }

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
    const r: RunState<E> = {
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
    const scanned = yield* scan(r, listed, marks)
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
    const stopped = yield* backfill(r, unfinished, marks, scanned)
    return yield* report(stopped, false)
  }).pipe(Effect.scoped, Effect.withSpan("MemoryBackfill.run"))

/** Counts a session's outcome and tells the caller. */
const progress = <E>(r: RunState<E>, sessionId: string, outcome: SessionOutcome, problem?: string) =>
  Effect.suspend(() => {
    r.done++
    r.counts[outcome]++
    if (outcome === "resumed") r.counts.backfilled++
    return r.options.onProgress?.({ done: r.done, total: r.total, sessionId, outcome, problem }) ?? Effect.void
  })

/**
 * Distils a queued session (here, or by the worker with the model) and marks it done; answers
 * `false` when a worker that holds the lock distils it instead.
 */
const distil = <E>(r: RunState<E>, sessionId: string) =>
  Effect.gen(function*() {
    if (r.options.mode === "model" && r.options.distil !== undefined) {
      if ((yield* r.options.distil) === "busy") {
        r.busy = true
        return false
      }
    } else {
      yield* distilLocally(sessionId, r.config)
    }
    const now = yield* Clock.currentTimeMillis
    return yield* Effect.try({
      try: () => {
        const finished = BackfillStore.finish(r.db, sessionId, now)
        // counted from the rows, whoever distilled them (here, or the worker with the model)
        const made = BackfillStore.made(r.db, sessionId)
        r.observations += made.observations
        r.summaries += made.summaries
        return finished
      },
      catch: databaseError("marking a session done")
    })
  })

/** A session's transcript read and turned into captures (read again when needed: nothing is held across sessions). */
const load = <E>(r: RunState<E>, session: PastSession): Effect.Effect<Loaded> =>
  r.options.source.entries(session).pipe(
    Effect.map((entries): Loaded => {
      const project = session.project ?? TranscriptHooks.projectOf(entries)
      return {
        _tag: "Loaded",
        project,
        captures: TranscriptHooks.captures({ ...session, cwd: project }, entries, r.config, session.lastActivity)
      }
    }),
    // one transcript that cannot be read (deleted since the listing) does not stop the others
    Effect.catchAll((error) =>
      Effect.succeed<Loaded>({
        _tag: "Unreadable",
        problem: (error as { readonly message?: unknown } | null)?.message?.toString() ?? String(error)
      })
    )
  )

/**
 * The sessions to queue: those not marked, of the project asked for. A session whose project is
 * unknown is read to learn it; with the model (or a dry run) every one is read to size the
 * estimate.
 */
const scan = <E>(r: RunState<E>, listed: ReadonlyArray<PastSession>, marks: ReadonlyMap<string, string>) =>
  Effect.gen(function*() {
    const project = r.options.project
    const sized = r.options.mode === "model" || r.options.dryRun === true
    const unreadable = new Map<string, string>()
    const sizes: Array<ReadonlyArray<BackfillEstimate.EventSize>> = []
    const candidates: Array<PastSession> = []
    for (const session of listed) {
      if (marks.has(session.sessionId)) continue
      const known = session.project !== undefined && !sized
      if (known && project !== undefined && session.project !== project) continue
      if (known) {
        candidates.push(session)
        continue
      }
      const loaded = yield* load(r, session)
      if (loaded._tag === "Unreadable") {
        unreadable.set(session.sessionId, loaded.problem)
        candidates.push(session)
        continue
      }
      if (project !== undefined && loaded.project !== project) continue
      candidates.push(session)
      sizes.push(BackfillEstimate.sizesOf(loaded.captures.map((timed) => timed.capture)))
    }
    const candidateIds = new Set(candidates.map((session) => session.sessionId))
    const inScope = listed.filter((session) =>
      candidateIds.has(session.sessionId) ||
      (marks.has(session.sessionId) && (project === undefined || marks.get(session.sessionId) === project))
    )
    const estimate = sized ? BackfillEstimate.estimate(sizes, r.config) : undefined
    return { candidates, unreadable, inScope, estimate } satisfies Scan
  })

/** Why the run stops before the next session (a busy worker, the budget spent), or `undefined`. */
const budgetStop = <E>(r: RunState<E>) =>
  Effect.gen(function*() {
    if (r.options.mode !== "model") return undefined
    if (r.busy) {
      return `stopped: a memory worker is running; it distils the ${
        plural(r.counts.waiting, "session")
      } queued so far; ${r.total - r.done} left for a later run (acx memory backfill goes on from here)`
    }
    const reason = spentReason(r.config, yield* MemoryStore.spendOn(yield* Clock.currentTimeMillis))
    return reason === undefined
      ? undefined
      : `stopped: ${reason}; ${r.counts.backfilled} of ${r.total} sessions backfilled, ${
        r.total - r.done
      } left for a later run (acx memory backfill goes on from here)`
  })

/**
 * Resumes what a killed run left queued, counts the sessions already marked, then queues and
 * distils each candidate; answers why it stopped early, or `undefined`.
 */
const backfill = <E>(
  r: RunState<E>,
  unfinished: ReadonlyArray<{ readonly sessionId: string }>,
  marks: ReadonlyMap<string, string>,
  scanned: Scan
) =>
  Effect.gen(function*() {
    for (const row of unfinished) {
      const stop = yield* budgetStop(r)
      if (stop !== undefined) return stop
      if (r.options.mode === "local") {
        yield* Effect.try({
          try: () => BackfillStore.setLocal(r.db, row.sessionId, LOCAL_REASON),
          catch: databaseError("marking a session local")
        })
      }
      const finished = yield* distil(r, row.sessionId)
      yield* progress(r, row.sessionId, finished ? "resumed" : "waiting")
    }
    const resumedIds = new Set(unfinished.map((row) => row.sessionId))
    for (const session of scanned.inScope) {
      if (marks.has(session.sessionId) && !resumedIds.has(session.sessionId)) {
        yield* progress(r, session.sessionId, "already")
      }
    }
    for (const session of scanned.candidates) {
      const stop = yield* budgetStop(r)
      if (stop !== undefined) return stop
      yield* backfillSession(r, session, scanned.unreadable.get(session.sessionId))
    }
    const stop = yield* budgetStop(r)
    return r.busy ? stop : undefined
  })

/** Reads one session (unless it is known unreadable), queues its captures and distils them. */
const backfillSession = <E>(r: RunState<E>, session: PastSession, unreadable: string | undefined) =>
  Effect.gen(function*() {
    const loaded: Loaded = unreadable !== undefined
      ? { _tag: "Unreadable", problem: unreadable }
      : yield* load(r, session)
    if (loaded._tag === "Unreadable") return yield* progress(r, session.sessionId, "unreadable", loaded.problem)
    const { captures, project } = loaded
    if (project !== undefined && MemoryConfig.isExcluded(r.config, project)) {
      return yield* progress(r, session.sessionId, "excluded")
    }
    const now = yield* Clock.currentTimeMillis
    const mode = r.options.mode
    const queued = yield* Effect.try({
      try: () =>
        BackfillStore.queue(r.db, {
          sessionId: session.sessionId,
          project: project ?? "",
          source: r.options.source.name,
          mode,
          localReason: mode === "local" ? LOCAL_REASON : undefined,
          now
        }, captures),
      catch: databaseError(`queueing session ${session.sessionId}`)
    })
    if (queued._tag !== "Queued") {
      return yield* progress(r, session.sessionId, queued._tag === "Live" ? "live" : "already")
    }
    r.counts.events += queued.events
    if (queued.events === 0) return yield* progress(r, session.sessionId, "empty")
    const finished = yield* distil(r, session.sessionId)
    yield* progress(r, session.sessionId, finished ? "backfilled" : "waiting")
  })
