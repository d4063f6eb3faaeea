/**
 * `SessionOrigins` on Postgres: `<schema>.acx_session_origin`, and the ledger's adoption of an
 * older path-keyed source. Writes take the clock row's lock first, as every writer of the store.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import type * as SessionOrigins from "../SessionOrigins.js"
import type * as SessionStore from "../SessionStore.js"
import { originOfRow, type OriginRow } from "./catalogRows.js"

/** The migration that creates the table. */
export const createOriginTable = (sql: SqlClient.SqlClient, schema: string) =>
  sql`CREATE TABLE ${sql(`${schema}.acx_session_origin`)} (
    project_key TEXT NOT NULL,
    session_id TEXT NOT NULL,
    machine TEXT NOT NULL,
    os_user TEXT NOT NULL,
    project TEXT NOT NULL,
    recorded_ms BIGINT NOT NULL,
    PRIMARY KEY (project_key, session_id)
  )`

/** The origin methods over the store's client. */
export const makeOrigins = (
  sql: SqlClient.SqlClient,
  schema: string,
  writeTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>,
  storageError: (operation: string) => (cause: unknown) => SessionStore.SessionStoreError
): SessionOrigins.SessionOrigins => {
  const origin = sql(`${schema}.acx_session_origin`)
  const ledger = sql(`${schema}.acx_import_ledger`)
  const span = (operation: string) => Effect.withSpan(`PostgresSessionStore.${operation}`, { attributes: { schema } })
  const adopt = (from: string, to: string) =>
    writeTransaction(Effect.gen(function*() {
      const taken = yield* sql`SELECT 1 FROM ${ledger} WHERE db_user = current_user AND source = ${to} LIMIT 1`
      if (taken.length > 0) return false
      const moved = yield* sql`UPDATE ${ledger} SET source = ${to}
        WHERE db_user = current_user AND source = ${from} RETURNING 1`
      return moved.length > 0
    }))
  return {
    listOrigins: (projectKey, sessions) =>
      sql<OriginRow>`SELECT project_key, session_id, machine, os_user, project FROM ${origin} WHERE TRUE
        ${projectKey === undefined ? sql`` : sql`AND project_key = ${projectKey}`}
        ${
        sessions === undefined ? sql`` : sql`AND (project_key, session_id) IN (SELECT x.p, x.s
          FROM json_to_recordset(${
          JSON.stringify(sessions.map((key) => ({ p: key.projectKey, s: key.sessionId })))
        }::json) AS x(p TEXT, s TEXT))`
      }`.pipe(
        Effect.map((rows) => rows.map(originOfRow)),
        Effect.mapError(storageError("listOrigins")),
        span("listOrigins")
      ),
    recordOrigins: (origins) =>
      writeTransaction(
        Effect.reduce(origins, 0, (added, row) =>
          sql`INSERT INTO ${origin} (project_key, session_id, machine, os_user, project, recorded_ms)
          VALUES (${row.projectKey}, ${row.sessionId}, ${row.machine}, ${row.user}, ${row.project}, ${Date.now()})
          ON CONFLICT (project_key, session_id) DO NOTHING RETURNING 1`.pipe(
            Effect.map((rows) =>
              added + rows.length
            )
          ))
      ).pipe(Effect.mapError(storageError("recordOrigins")), span("recordOrigins")),
    adoptSource: (from, to) =>
      // A source with records has adopted (or never needed to): told without the clock row's
      // lock, which every writer of the hub waits on; only a first sync takes it to adopt
      sql`SELECT 1 FROM ${ledger} WHERE db_user = current_user AND source = ${to} LIMIT 1`.pipe(
        Effect.flatMap((taken) => taken.length > 0 ? Effect.succeed(false) : adopt(from, to)),
        Effect.mapError(storageError("adoptSource")),
        span("adoptSource")
      )
  }
}
