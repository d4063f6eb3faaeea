/**
 * `SessionOrigins` on SQLite: `acx_session_origin`, and the ledger's adoption of an older
 * path-keyed source. Writes go through the store's write transaction (the write lock first).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import type * as SessionOrigins from "../SessionOrigins.js"
import type * as SessionStore from "../SessionStore.js"
import { originOfRow, type OriginRow } from "./catalogRows.js"

/** The migration that creates the table. */
export const createOriginTable = (sql: SqlClient.SqlClient) =>
  sql`CREATE TABLE acx_session_origin (
    project_key TEXT NOT NULL,
    session_id TEXT NOT NULL,
    machine TEXT NOT NULL,
    os_user TEXT NOT NULL,
    project TEXT NOT NULL,
    recorded_ms INTEGER NOT NULL,
    PRIMARY KEY (project_key, session_id)
  )`

/** The origin methods over the store's client. */
export const makeOrigins = (
  sql: SqlClient.SqlClient,
  writeTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>,
  storageError: (operation: string) => (cause: unknown) => SessionStore.SessionStoreError
): SessionOrigins.SessionOrigins => {
  const taken = (source: string) =>
    Effect.map(
      sql<{ readonly n: number }>`SELECT count(*) AS n FROM acx_session_import_ledger WHERE source = ${source}`,
      ([row]) => Number(row?.n ?? 0)
    )
  return {
    listOrigins: (projectKey, sessions) =>
      sql<OriginRow>`SELECT project_key, session_id, machine, os_user, project FROM acx_session_origin WHERE 1
      ${projectKey === undefined ? sql`` : sql`AND project_key = ${projectKey}`}
      ${
        sessions === undefined ? sql`` : sql`AND (project_key, session_id) IN
        (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(${
          JSON.stringify(sessions.map((key) => [key.projectKey, key.sessionId]))
        }))`
      }`.pipe(
        Effect.map((rows) => rows.map(originOfRow)),
        Effect.mapError(storageError("listOrigins")),
        Effect.withSpan("SqliteSessionStore.listOrigins")
      ),
    recordOrigins: (origins) =>
      writeTransaction(
        Effect.reduce(origins, 0, (added, origin) =>
          sql<{ readonly n: number }>`INSERT INTO acx_session_origin
        (project_key, session_id, machine, os_user, project, recorded_ms)
        VALUES (${origin.projectKey}, ${origin.sessionId}, ${origin.machine}, ${origin.user}, ${origin.project}, ${Date.now()})
        ON CONFLICT (project_key, session_id) DO NOTHING RETURNING 1 AS n`.pipe(
            Effect.map((rows) => added + rows.length)
          ))
      ).pipe(
        Effect.mapError(storageError("recordOrigins")),
        Effect.catchAllDefect((cause) => Effect.fail(storageError("recordOrigins")(cause))),
        Effect.withSpan("SqliteSessionStore.recordOrigins", { attributes: { origins: origins.length } })
      ),
    adoptSource: (from, to) =>
      // a source with records has adopted (or never needed to): told without the write lock
      Effect.flatMap(taken(to), (n) =>
        n > 0 ? Effect.succeed(false) : writeTransaction(Effect.gen(function*() {
          if ((yield* taken(to)) > 0) return false
          const moved = yield* sql<{ readonly n: number }>`UPDATE acx_session_import_ledger SET source = ${to}
          WHERE source = ${from} RETURNING 1 AS n`
          return moved.length > 0
        }))).pipe(
          Effect.mapError(storageError("adoptSource")),
          Effect.catchAllDefect((cause) => Effect.fail(storageError("adoptSource")(cause))),
          Effect.withSpan("SqliteSessionStore.adoptSource")
        )
  }
}
