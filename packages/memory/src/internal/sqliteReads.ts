/**
 * The SQLite statements behind `MemoryRepo`'s lists and counts (the page's timeline, a session's
 * memory, the live feed, the demo's report, the spend per day): each reads one table through its
 * column list (`columns.ts`) into the memory's rows.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import { MemoryError } from "../MemoryError.js"
import type { EventQuery, EventRow, ListQuery, ProjectRow, PromptRow, SpendRow } from "../MemoryRows.js"
import {
  decodeObservation,
  decodeSummary,
  eventColumns,
  observationColumns,
  promptColumns,
  summaryColumns
} from "./columns.js"

const databaseError = (what: string) => (cause: SqlError) =>
  new MemoryError({ reason: "Database", description: `${what}: ${cause.message.split("\n")[0]}`, cause })

/** `LIMIT n` for a limit (none, or `Infinity`: no clause; below 0 or not a number: 0). Total. */
const limitClause = (sql: SqlClient.SqlClient, limit: number | undefined) =>
  limit === undefined || limit === Number.POSITIVE_INFINITY
    ? sql.literal("")
    : sql`LIMIT ${Number.isNaN(limit) ? 0 : Math.max(0, Math.floor(limit))}`

/** The conditions and order a list query asks of a table (`forgettable`: it has `forgotten_at`). */
const listed = (sql: SqlClient.SqlClient, query: ListQuery, forgettable: boolean, typed: boolean) => {
  // an empty id list selects nothing (`IN ()` is not SQL everywhere)
  const where = sql.and([
    ...(forgettable && query.includeForgotten !== true ? [sql`forgotten_at IS NULL`] : []),
    ...(query.project === undefined ? [] : [sql`project = ${query.project}`]),
    ...(query.sessionId === undefined ? [] : [sql`session_id = ${query.sessionId}`]),
    ...(typed && query.type !== undefined ? [sql`type = ${query.type}`] : []),
    ...(query.before === undefined ? [] : [sql`id < ${query.before}`]),
    ...(query.after === undefined ? [] : [sql`id > ${query.after}`]),
    ...(query.ids === undefined ? [] : [query.ids.length === 0 ? sql`1 = 0` : sql.in("id", query.ids)])
  ])
  const order = sql.literal(query.order === "newest" ? "ORDER BY id DESC" : "ORDER BY id")
  return sql`WHERE ${where} ${order} ${limitClause(sql, query.limit)}`
}

/** Observations a query selects. */
export const observations = (query: ListQuery) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<Parameters<typeof decodeObservation>[0]>`
      SELECT ${sql.literal(observationColumns)} FROM memory_observations ${listed(sql, query, true, true)}`.pipe(
      Effect.map((rows) => rows.map(decodeObservation))
    )).pipe(Effect.mapError(databaseError("reading observations")), Effect.withSpan("MemoryRepo.observations"))

/** Summaries a query selects. */
export const summaries = (query: ListQuery) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<Parameters<typeof decodeSummary>[0]>`
      SELECT ${sql.literal(summaryColumns)} FROM memory_summaries ${listed(sql, query, true, false)}`.pipe(
      Effect.map((rows) => rows.map(decodeSummary))
    )).pipe(Effect.mapError(databaseError("reading summaries")), Effect.withSpan("MemoryRepo.summaries"))

/** Prompts a query selects (prompts are never forgotten). */
export const prompts = (query: ListQuery) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<PromptRow>`
      SELECT ${sql.literal(promptColumns)} FROM memory_prompts ${listed(sql, query, false, false)}`).pipe(
      Effect.mapError(databaseError("reading prompts")),
      Effect.withSpan("MemoryRepo.prompts")
    )

/** Queued events a query selects. */
export const events = (query: EventQuery) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const where = sql.and([
      ...(query.sessionId === undefined ? [] : [sql`session_id = ${query.sessionId}`]),
      ...(query.state === undefined ? [] : [sql`state = ${query.state}`]),
      ...(query.ids === undefined ? [] : [query.ids.length === 0 ? sql`1 = 0` : sql.in("id", query.ids)])
    ])
    return sql<EventRow>`
      SELECT ${sql.literal(eventColumns)} FROM memory_events WHERE ${where}
      ${sql.literal(query.order === "newest" ? "ORDER BY id DESC" : "ORDER BY id")} ${limitClause(sql, query.limit)}`
  }).pipe(Effect.mapError(databaseError("reading the queue")), Effect.withSpan("MemoryRepo.events"))

/** Every project with its sessions and what is kept of it, the most recently active first. */
export const projects = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<ProjectRow>`
    SELECT s.project AS project, count(*) AS sessions, max(s.last_event_at) AS lastAt,
      (SELECT count(*) FROM memory_observations o WHERE o.project = s.project AND o.forgotten_at IS NULL)
        AS observations,
      (SELECT count(*) FROM memory_summaries m WHERE m.project = s.project AND m.forgotten_at IS NULL)
        AS summaries
    FROM memory_sessions s GROUP BY s.project ORDER BY lastAt DESC`).pipe(
    Effect.mapError(databaseError("reading the projects")),
    Effect.withSpan("MemoryRepo.projects")
  )

/** The newest observation's id, forgotten ones included (0: none yet). */
export const lastObservationId = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ last: number | null }>`SELECT max(id) AS last FROM memory_observations`
).pipe(
  Effect.map((rows) => rows[0]?.last ?? 0),
  Effect.mapError(databaseError("reading the observations")),
  Effect.withSpan("MemoryRepo.lastObservationId")
)

/** The usage ledger summed per UTC day, oldest first. */
export const spendByDay = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<SpendRow>`
    SELECT day, count(*) AS calls, sum(input_tokens) AS inputTokens, sum(output_tokens) AS outputTokens,
      sum(cache_read_tokens) AS cacheReadTokens, sum(cache_creation_tokens) AS cacheCreationTokens,
      sum(cost_usd) AS costUsd
    FROM memory_usage GROUP BY day ORDER BY day`).pipe(
    Effect.mapError(databaseError("reading the usage ledger")),
    Effect.withSpan("MemoryRepo.spendByDay")
  )
