/**
 * The one-worker-per-memory lock: a row of the database (`memory_worker`) holding the worker's
 * pid, its start time (`ProcessLiveness.startTime`) and heartbeat. Taking it is a compare-and-set
 * on the values read, so of two workers started at once exactly one wins; a holder that is dead by
 * `judgeWorker`'s rule (its process exited or is a zombie, its pid now another process's, or its
 * heartbeat stale) is replaced at once. A lock file would need the same check to
 * break a dead holder's lock, and that check races between two breakers; SQLite's write lock
 * does not.
 */
import * as ProcessLiveness from "@acx/environment/ProcessLiveness"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { judgeWorker, type WorkerRow } from "./hookStore.js"

/** What a claim found: the lock taken (over a dead holder, when `tookOver`), or a live holder's. */
export type Claimed =
  | { readonly won: true; readonly tookOver: { readonly pid: number; readonly why: string } | undefined }
  | { readonly won: false; readonly holder: number | null; readonly startedAt: number | null }

const heldBy = (holder: number | null, startedAt: number | null): Claimed => ({ won: false, holder, startedAt })
const wonOver = (tookOver: { readonly pid: number; readonly why: string } | undefined): Claimed => ({
  won: true,
  tookOver
})

const readRow = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.map(
    sql<WorkerRow>`SELECT pid, pid_start AS pidStart, started_at AS startedAt, heartbeat_at AS heartbeatAt
      FROM memory_worker WHERE id = 1`,
    (rows) => rows[0]
  ))

/**
 * Takes the lock for `pid` (recording its start time beside it), or says which live worker holds
 * it. A holder that is dead by `judgeWorker`'s rule (its process exited, a zombie, its pid
 * reused, or its heartbeat stale) is replaced at once, and `log` is told so.
 */
export const claim = (pid: number, now: number, log: (line: string) => void = () => {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const row = yield* readRow
    const holder = judgeWorker(row, now)
    if (holder._tag === "Live" && holder.pid !== pid) {
      return heldBy(holder.pid, holder.startedAt)
    }
    const pidStart = ProcessLiveness.startTime(pid) ?? null
    const taken = yield* sql`UPDATE memory_worker SET pid = ${pid}, pid_start = ${pidStart}, started_at = ${now},
      heartbeat_at = ${now}, stopped_at = NULL, spawned_at = NULL WHERE id = 1 AND pid IS ${row?.pid ?? null}
      AND heartbeat_at IS ${row?.heartbeatAt ?? null} RETURNING id`
    if (taken.length === 1) {
      const tookOver = holder._tag === "Dead" && holder.pid !== pid ? { pid: holder.pid, why: holder.why } : undefined
      if (tookOver !== undefined) {
        log(`worker ${pid}: worker pid ${tookOver.pid} is gone (${tookOver.why}); taking over`)
      }
      return wonOver(tookOver)
    }
    const after = yield* readRow
    return heldBy(after?.pid ?? null, after?.startedAt ?? null)
  })

/** Takes the lock again for an idle worker that gave it up and then found work: whether it won. */
export const retake = (pid: number, log?: (line: string) => void) =>
  Effect.map(Effect.flatMap(Clock.currentTimeMillis, (now) => claim(pid, now, log)), (claimed) => claimed.won)

/** Renews the heartbeat; false when the lock is no longer ours. */
export const heartbeat = (pid: number, now: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql`UPDATE memory_worker SET heartbeat_at = ${now} WHERE id = 1 AND pid = ${pid} RETURNING id`,
      (rows) => rows.length === 1
    ))

/** Says that the lock was taken over: how the worker then ends. */
export const lost = (pid: number, log: (line: string) => void) =>
  Effect.sync(() => {
    log(`worker ${pid}: the lock was taken over; stopping`)
    return { _tag: "LockLost" as const }
  })

/**
 * The heartbeat, every 10 s: a worker that lost its lock (taken for dead while paused) stops at
 * once. A heartbeat that fails (the database busy) counts as renewed: the next one tries again.
 */
export const watch = (pid: number, log: (line: string) => void) =>
  Effect.gen(function*() {
    while (true) {
      yield* Effect.sleep("10 seconds")
      const ours = yield* heartbeat(pid, yield* Clock.currentTimeMillis).pipe(Effect.orElseSucceed(() => true))
      if (!ours) return yield* lost(pid, log)
    }
  })

/** Gives the lock up (when still ours), noting the last error and why the worker went local. */
export const release = (pid: number, now: number, lastError?: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`UPDATE memory_worker SET pid = NULL, heartbeat_at = NULL, stopped_at = ${now}, spawned_at = NULL,
      last_error = coalesce(${lastError ?? null}, last_error) WHERE id = 1 AND pid = ${pid}`
  )

/**
 * Gives the lock up as an idle worker exits, only when no event is ready: one statement, under
 * SQLite's write lock, so a hook's event is either seen here (the worker goes on) or recorded
 * after the lock is free (that hook finds no worker alive and starts one). Checking the queue
 * and then releasing left a gap in which a hook saw the exiting worker alive and started none.
 */
export const releaseIfIdle = (pid: number, now: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const released = yield* sql`UPDATE memory_worker SET pid = NULL, heartbeat_at = NULL, stopped_at = ${now},
      spawned_at = NULL WHERE id = 1 AND pid = ${pid} AND NOT EXISTS (
        SELECT 1 FROM memory_events WHERE state = 'pending' AND next_attempt_at <= ${now}
      ) RETURNING id`
    if (released.length === 1) return "released" as const
    const [row] = yield* sql<WorkerRow>`SELECT pid, heartbeat_at AS heartbeatAt FROM memory_worker WHERE id = 1`
    return row?.pid === pid ? "work" as const : "lost" as const
  })

/**
 * Notes the settings the running worker uses — its mode and model, and why it records without a
 * model (`undefined`: it uses the model) — for `acx memory status`.
 */
export const setInForce = (inForce: {
  readonly mode: string
  readonly model: string
  readonly localReason: string | undefined
}) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`UPDATE memory_worker SET local_reason = ${inForce.localReason ?? null},
      settings = ${JSON.stringify({ mode: inForce.mode, model: inForce.model })} WHERE id = 1`
  )
