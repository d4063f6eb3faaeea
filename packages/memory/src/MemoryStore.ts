/**
 * The memory database's reads and writes for the worker and the CLI, on an `@effect/sql`
 * client (see `MemoryDatabase`): the queue (ready batches, completion in one transaction with
 * the observations it produced, failures with backoff), sessions, the usage ledger, the worker
 * lock, search (FTS5, bm25, snippets), show, timeline, status, forget and retry.
 *
 * Every write that changes more than one row runs in one transaction, started with a write so
 * that SQLite takes the write lock at once (a WAL reader that upgrades later can fail on a busy
 * file instead of waiting).
 *
 * @since 0.1.0
 */
import type { Observation, Summary } from "@acx/convert/ObserverReply"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import { eventColumns } from "./internal/columns.js"
import { MemoryError } from "./MemoryError.js"
import type * as MemoryRows from "./MemoryRows.js"

/**
 * A queued event as stored (the memory's one event row).
 *
 * @since 0.1.0
 * @category models
 */
export type EventRow = MemoryRows.EventRow

/**
 * A Claude Code session as the memory knows it (the memory's one session row).
 *
 * @since 0.1.0
 * @category models
 */
export type SessionRow = MemoryRows.SessionRow

/**
 * One model call's cost, for the ledger.
 *
 * @since 0.1.0
 * @category models
 */
export interface LedgerEntry {
  readonly sessionId: string
  readonly model: string
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cacheReadTokens: number
  readonly cacheCreationTokens: number
  readonly costUsd: number
}

/**
 * What a processed batch leaves behind.
 *
 * @since 0.1.0
 * @category models
 */
export interface BatchResult {
  readonly sessionId: string
  readonly project: string
  readonly eventIds: ReadonlyArray<number>
  readonly observations: ReadonlyArray<Observation>
  readonly summary: Summary | undefined
  readonly source: "model" | "local"
  readonly ledger: ReadonlyArray<LedgerEntry>
}

const databaseError = (what: string) => (cause: SqlError | MemoryError) =>
  cause instanceof MemoryError ? cause : new MemoryError({
    reason: "Database",
    description: `${what}: ${cause.message.split("\n")[0]}`,
    cause
  })

/** The UTC day of an epoch-ms time (`2026-11-24`): the ledger's budget day. */
export const utcDay = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10)

const json = (items: ReadonlyArray<unknown>) => JSON.stringify(items)

/**
 * Backoff after the `attempts`-th failure: 5 s, 20 s, 80 s, … capped at 30 minutes.
 *
 * @since 0.1.0
 * @category queue
 */
export const backoffMs = (attempts: number): number => Math.min(30 * 60_000, 5_000 * 4 ** Math.max(0, attempts - 1))

const sessionColumns = `id, project, status, observer_session_id AS observerSessionId,
  observer_usage AS observerUsage, observer_local_reason AS observerLocalReason, prompt_count AS promptCount,
  started_at AS startedAt, last_event_at AS lastEventAt, ended_at AS endedAt, last_error AS lastError`

/**
 * Runs `body` in a transaction whose first statement writes, so the write lock is taken (or
 * waited for) before anything is read.
 *
 * @since 0.1.0
 * @category transactions
 */
export const writeTransaction = <A, E, R>(
  body: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SqlError, R | SqlClient.SqlClient> =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql.withTransaction(Effect.zipRight(sql.unsafe("UPDATE memory_worker SET id = 1 WHERE id = 1"), body))
  )

// -------------------------------------------------------------------------------------------------
// queue
// -------------------------------------------------------------------------------------------------

/**
 * The sessions with events ready now (pending, past their backoff), oldest work first.
 *
 * @since 0.1.0
 * @category queue
 */
export const sessionsWithWork = Effect.fn("MemoryStore.sessionsWithWork")(function*(now: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ sessionId: string }>`
    SELECT session_id AS sessionId, min(id) AS first FROM memory_events
    WHERE state = 'pending' AND next_attempt_at <= ${now}
    GROUP BY session_id ORDER BY first`.pipe(Effect.mapError(databaseError("reading the queue")))
  return rows.map((row) => row.sessionId)
})

/**
 * A session's ready events, oldest first (at most `limit`).
 *
 * @since 0.1.0
 * @category queue
 */
export const readyEvents = Effect.fn("MemoryStore.readyEvents")(function*(
  sessionId: string,
  now: number,
  limit: number
) {
  const sql = yield* SqlClient.SqlClient
  return yield* sql<EventRow>`
    SELECT ${sql.literal(eventColumns)} FROM memory_events
    WHERE session_id = ${sessionId} AND state = 'pending' AND next_attempt_at <= ${now}
    ORDER BY id LIMIT ${limit}`.pipe(Effect.mapError(databaseError("reading the queue")))
})

/**
 * What a session's ready events (oldest first) give the worker to do next: the checkpoints at
 * their head (Stop / SessionEnd, summarised together), else the tool and prompt events before
 * the first checkpoint (`closed`: a checkpoint follows them, so the batch cannot grow). Pure.
 *
 * @since 0.3.0
 * @category queue
 */
export const nextUnit = <A extends { readonly kind: EventRow["kind"] }>(
  events: ReadonlyArray<A>
):
  | { readonly _tag: "Checkpoints"; readonly events: ReadonlyArray<A> }
  | { readonly _tag: "Batch"; readonly events: ReadonlyArray<A>; readonly closed: boolean } =>
{
  const firstCheckpoint = events.findIndex((event) => event.kind === "summarise")
  if (firstCheckpoint === 0) {
    const end = events.findIndex((event) => event.kind !== "summarise")
    return { _tag: "Checkpoints", events: events.slice(0, end === -1 ? undefined : end) }
  }
  return {
    _tag: "Batch",
    events: firstCheckpoint === -1 ? events : events.slice(0, firstCheckpoint),
    closed: firstCheckpoint !== -1
  }
}

/**
 * A session's tool and prompt events after the last summary and before `beforeId` (what the
 * checkpoint `beforeId` summarises).
 *
 * @since 0.1.0
 * @category queue
 */
export const eventsSinceSummary = Effect.fn("MemoryStore.eventsSinceSummary")(function*(
  sessionId: string,
  beforeId: number
) {
  const sql = yield* SqlClient.SqlClient
  const [last] = yield* sql<{ upTo: number | null }>`
    SELECT max(value) AS upTo FROM memory_summaries, json_each(memory_summaries.event_ids)
    WHERE session_id = ${sessionId}`
  return yield* sql<EventRow>`
    SELECT ${sql.literal(eventColumns)} FROM memory_events
    WHERE session_id = ${sessionId} AND kind != 'summarise' AND id > ${last?.upTo ?? 0} AND id < ${beforeId}
    ORDER BY id`
}, Effect.mapError(databaseError("reading a session's events")))

/**
 * Stores a batch's observations (and summary) and marks its events done, in ONE transaction:
 * a crash before the commit leaves the events pending and no observation; after it, both.
 * Events no longer pending (done by an earlier run) make it fail without writing anything.
 *
 * @since 0.1.0
 * @category queue
 */
export const completeBatch = Effect.fn("MemoryStore.completeBatch")(function*(batch: BatchResult, now: number) {
  const sql = yield* SqlClient.SqlClient
  return yield* writeTransaction(Effect.gen(function*() {
    const done = yield* sql`
      UPDATE memory_events SET state = 'done', processed_at = ${now}, last_error = NULL
      WHERE state = 'pending' AND ${sql.in("id", batch.eventIds)}
      RETURNING id`
    if (done.length !== batch.eventIds.length) {
      return yield* new MemoryError({
        reason: "Database",
        description: `events ${batch.eventIds.join(", ")} were no longer all pending: the batch was not stored twice`
      })
    }
    const eventIds = json(batch.eventIds)
    for (const observation of batch.observations) {
      yield* sql`INSERT INTO memory_observations ${
        sql.insert({
          session_id: batch.sessionId,
          project: batch.project,
          type: observation.type,
          title: observation.title,
          subtitle: observation.subtitle ?? null,
          narrative: observation.narrative,
          facts: json(observation.facts),
          concepts: json(observation.concepts),
          files_read: json(observation.filesRead),
          files_modified: json(observation.filesModified),
          event_ids: eventIds,
          source: batch.source,
          created_at: now
        })
      }`
    }
    if (batch.summary !== undefined) {
      const summary = batch.summary
      yield* sql`INSERT INTO memory_summaries ${
        sql.insert({
          session_id: batch.sessionId,
          project: batch.project,
          request: summary.request,
          investigated: summary.investigated,
          learned: summary.learned,
          completed: summary.completed,
          next_steps: summary.nextSteps,
          files_read: json(summary.filesRead),
          files_edited: json(summary.filesEdited),
          notes: summary.notes,
          event_ids: eventIds,
          source: batch.source,
          created_at: now
        })
      }`
    }
    yield* recordLedger(batch.ledger, now)
  }))
}, Effect.mapError(databaseError("storing a batch")))

/**
 * Adds model calls to the usage ledger.
 *
 * @since 0.1.0
 * @category ledger
 */
export const recordLedger = (entries: ReadonlyArray<LedgerEntry>, now: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      Effect.forEach(entries, (entry) =>
        sql`INSERT INTO memory_usage ${
          sql.insert({
            session_id: entry.sessionId,
            model: entry.model,
            input_tokens: entry.inputTokens,
            output_tokens: entry.outputTokens,
            cache_read_tokens: entry.cacheReadTokens,
            cache_creation_tokens: entry.cacheCreationTokens,
            cost_usd: entry.costUsd,
            day: utcDay(now),
            created_at: now
          })
        }`, { discard: true })
  )

/**
 * Records a failed attempt at some events: the error (and the reply, kept for inspection),
 * the next attempt after a backoff, `failed` once `maxAttempts` is reached. Returns how many
 * events are now `failed`.
 *
 * @since 0.1.0
 * @category queue
 */
export const failBatch = Effect.fn("MemoryStore.failBatch")(function*(
  eventIds: ReadonlyArray<number>,
  error: string,
  options: { readonly reply?: string | undefined; readonly maxAttempts: number; readonly now: number }
) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* writeTransaction(Effect.forEach(eventIds, (id) =>
    sql<{ state: string }>`
      UPDATE memory_events SET
        attempts = attempts + 1,
        last_error = ${error.slice(0, 2000)},
        last_reply = coalesce(${options.reply?.slice(0, 100_000) ?? null}, last_reply),
        state = CASE WHEN attempts + 1 >= ${options.maxAttempts} THEN 'failed' ELSE 'pending' END,
        next_attempt_at = ${options.now} + CASE attempts WHEN 0 THEN ${backoffMs(1)} WHEN 1 THEN ${backoffMs(2)}
          ELSE ${backoffMs(3)} END
      WHERE id = ${id} AND state = 'pending' RETURNING state`))
  return rows.flat().filter((row) => row.state === "failed").length
}, Effect.mapError(databaseError("recording a failure")))

/**
 * Re-queues every failed event (attempts reset); returns how many.
 *
 * @since 0.1.0
 * @category queue
 */
export const retryFailed = Effect.fn("MemoryStore.retryFailed")(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`
    UPDATE memory_events SET state = 'pending', attempts = 0, next_attempt_at = 0 WHERE state = 'failed' RETURNING id`
  yield* sql`UPDATE memory_sessions SET status = 'active' WHERE status = 'failed'`
  return rows.length
}, Effect.mapError(databaseError("re-queueing failed events")))

// -------------------------------------------------------------------------------------------------
// sessions
// -------------------------------------------------------------------------------------------------

/**
 * A session by id.
 *
 * @since 0.1.0
 * @category sessions
 */
export const session = Effect.fn("MemoryStore.session")(function*(id: string) {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<SessionRow>`SELECT ${sql.literal(sessionColumns)} FROM memory_sessions WHERE id = ${id}`
  return row
}, Effect.mapError(databaseError("reading a session")))

/**
 * Saves the observer conversation's id and usage for a session (read back to resume it).
 *
 * @since 0.1.0
 * @category sessions
 */
export const saveObserver = Effect.fn("MemoryStore.saveObserver")(function*(
  id: string,
  observer: { readonly sessionId: string | undefined; readonly usage: unknown }
) {
  const sql = yield* SqlClient.SqlClient
  yield* sql`UPDATE memory_sessions SET
    observer_session_id = coalesce(${observer.sessionId ?? null}, observer_session_id),
    observer_usage = ${JSON.stringify(observer.usage)}
    WHERE id = ${id}`
}, Effect.mapError(databaseError("saving the observer's session")))

/**
 * Forgets a session's observer conversation: its next batch starts a fresh one.
 *
 * @since 0.1.0
 * @category sessions
 */
export const forgetObserver = Effect.fn("MemoryStore.forgetObserver")(function*(id: string) {
  const sql = yield* SqlClient.SqlClient
  yield* sql`UPDATE memory_sessions SET observer_session_id = NULL, observer_usage = NULL WHERE id = ${id}`
}, Effect.mapError(databaseError("updating a session")))

/**
 * A session's observations so far, oldest first (at most `limit`; forgotten ones left out): what
 * a summary written by a fresh observer conversation is told.
 *
 * @since 0.1.0
 * @category sessions
 */
export const sessionObservations = Effect.fn("MemoryStore.sessionObservations")(function*(id: string, limit = 40) {
  const sql = yield* SqlClient.SqlClient
  return yield* sql<{ readonly type: string; readonly title: string }>`
    SELECT type, title FROM memory_observations WHERE session_id = ${id} AND forgotten_at IS NULL
    ORDER BY id LIMIT ${limit}`
}, Effect.mapError(databaseError("reading a session's observations")))

/**
 * Sets a session's status (and its last error).
 *
 * @since 0.1.0
 * @category sessions
 */
export const setSessionStatus = Effect.fn("MemoryStore.setSessionStatus")(function*(
  id: string,
  status: SessionRow["status"],
  lastError?: string
) {
  const sql = yield* SqlClient.SqlClient
  yield* sql`UPDATE memory_sessions SET status = ${status}, last_error = coalesce(${lastError ?? null}, last_error)
    WHERE id = ${id}`
}, Effect.mapError(databaseError("updating a session")))

/**
 * Marks a session's observer as local (why), so its later batches skip the model.
 *
 * @since 0.1.0
 * @category sessions
 */
export const setObserverLocal = Effect.fn("MemoryStore.setObserverLocal")(function*(id: string, reason: string) {
  const sql = yield* SqlClient.SqlClient
  yield* sql`UPDATE memory_sessions SET observer_local_reason = ${reason} WHERE id = ${id}`
}, Effect.mapError(databaseError("updating a session")))

/**
 * Active sessions with no event for `hours` become `interrupted`; returns how many.
 *
 * @since 0.1.0
 * @category sessions
 */
export const markInterrupted = Effect.fn("MemoryStore.markInterrupted")(function*(now: number, hours: number) {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`UPDATE memory_sessions SET status = 'interrupted'
    WHERE status = 'active' AND ended_at IS NULL AND last_event_at < ${now - hours * 3_600_000} RETURNING id`
  return rows.length
}, Effect.mapError(databaseError("marking interrupted sessions")))

// -------------------------------------------------------------------------------------------------
// ledger and budget
// -------------------------------------------------------------------------------------------------

/**
 * A day's observer spend.
 *
 * @since 0.1.0
 * @category ledger
 */
export interface DaySpend {
  readonly day: string
  readonly calls: number
  readonly tokens: number
  readonly inputTokens: number
  readonly outputTokens: number
  readonly costUsd: number
}

/**
 * The spend of the UTC day `now` falls in.
 *
 * @since 0.1.0
 * @category ledger
 */
export const spendOn = Effect.fn("MemoryStore.spendOn")(function*(now: number) {
  const sql = yield* SqlClient.SqlClient
  const day = utcDay(now)
  const [row] = yield* sql<Omit<DaySpend, "day">>`
    SELECT count(*) AS calls,
      coalesce(sum(input_tokens + output_tokens + cache_read_tokens + cache_creation_tokens), 0) AS tokens,
      coalesce(sum(input_tokens), 0) AS inputTokens, coalesce(sum(output_tokens), 0) AS outputTokens,
      coalesce(sum(cost_usd), 0) AS costUsd
    FROM memory_usage WHERE day = ${day}`
  return { day, ...row! } satisfies DaySpend
}, Effect.mapError(databaseError("reading the usage ledger")))
