/**
 * The one-worker-per-memory lock: a row of the database (`memory_worker`) holding the worker's
 * pid and heartbeat. Taking it is a compare-and-set on the values read, so of two workers
 * started at once exactly one wins; a holder whose process is gone, or whose heartbeat is stale
 * (its pid reused by another program), is replaced. A lock file would need the same check to
 * break a dead holder's lock, and that check races between two breakers; SQLite's write lock
 * does not.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { processExists, WORKER_STALE_MS } from "./hookStore.js"

interface WorkerRow {
  readonly pid: number | null
  readonly heartbeatAt: number | null
}

/** Takes the lock for `pid`, or says which live worker holds it. */
export const claim = (pid: number, now: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<WorkerRow>`SELECT pid, heartbeat_at AS heartbeatAt FROM memory_worker WHERE id = 1`
    const holder = row?.pid ?? null
    if (
      holder !== null && holder !== pid && row!.heartbeatAt !== null && now - row!.heartbeatAt <= WORKER_STALE_MS &&
      processExists(holder)
    ) {
      return { won: false as const, holder }
    }
    const taken = yield* sql`UPDATE memory_worker SET pid = ${pid}, started_at = ${now}, heartbeat_at = ${now},
      stopped_at = NULL, spawned_at = NULL WHERE id = 1 AND pid IS ${holder} AND heartbeat_at IS ${
      row?.heartbeatAt ?? null
    } RETURNING id`
    if (taken.length === 1) return { won: true as const }
    const [after] = yield* sql<WorkerRow>`SELECT pid, heartbeat_at AS heartbeatAt FROM memory_worker WHERE id = 1`
    return { won: false as const, holder: after?.pid ?? null }
  })

/** Renews the heartbeat; false when the lock is no longer ours. */
export const heartbeat = (pid: number, now: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql`UPDATE memory_worker SET heartbeat_at = ${now} WHERE id = 1 AND pid = ${pid} RETURNING id`,
      (rows) => rows.length === 1
    ))

/** Gives the lock up (when still ours), noting the last error and why the worker went local. */
export const release = (pid: number, now: number, lastError?: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`UPDATE memory_worker SET pid = NULL, heartbeat_at = NULL, stopped_at = ${now}, spawned_at = NULL,
      last_error = coalesce(${lastError ?? null}, last_error) WHERE id = 1 AND pid = ${pid}`
  )

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
