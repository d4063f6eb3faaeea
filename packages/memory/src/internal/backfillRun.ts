/**
 * The steps of one `MemoryBackfill.run`: its state (the options, the memory database, the counts
 * so far), the scan of the listed sessions, the resume of what a killed run left queued, and one
 * session read, queued and distilled.
 */
import { plural } from "@acx/convert/Plural"
import type Database from "better-sqlite3"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as BackfillEstimate from "../BackfillEstimate.js"
import * as LocalObservations from "../LocalObservations.js"
import type { BackfillOptions, PastSession, SessionOutcome } from "../MemoryBackfillOptions.js"
import * as MemoryConfig from "../MemoryConfig.js"
import { MemoryError } from "../MemoryError.js"
import * as MemoryStore from "../MemoryStore.js"
import * as TranscriptHooks from "../TranscriptHooks.js"
import * as BackfillStore from "./backfillStore.js"
import { spentReason } from "./dailyBudget.js"

/** A failure while doing `what`, as a `Database` `MemoryError` (one already typed is kept). */
export const databaseError = (what: string) => (cause: unknown) =>
  cause instanceof MemoryError ? cause : new MemoryError({
    reason: "Database",
    description: `${what}: ${(cause instanceof Error ? cause.message : String(cause)).split("\n")[0]}`,
    cause
  })

/** The reason a backfilled session is distilled without a model, kept on the session. */
export const LOCAL_REASON = "backfilled locally (acx memory backfill --mode local)"

/**
 * Distils a session's pending events without a model, as the worker does without one: batches of
 * `batchSize` become `LocalObservations`, each run of checkpoints a summary of the events since
 * the last one; each stored with its events marked done in one transaction, dated at its last
 * event (the transcript's time). Events another worker took meanwhile are left to it.
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

export type Counts = { -readonly [K in SessionOutcome | "events"]: number }

/** One run's state: what it was asked, the memory database, and the counts so far. */
export interface RunState<E> {
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
export interface Scan {
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
export const scan = <E>(r: RunState<E>, listed: ReadonlyArray<PastSession>, marks: ReadonlyMap<string, string>) =>
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
export const backfill = <E>(
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
