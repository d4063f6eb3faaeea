/**
 * What the memory's tests share: hook inputs through the real hook function, reading the memory
 * database, and providing it to an Effect.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as HookRunner from "../../src/HookRunner.js"
import * as Sqlite from "../../src/internal/sqlite.js"
import * as MemoryConfig from "../../src/MemoryConfig.js"
import * as MemoryDatabase from "../../src/MemoryDatabase.js"

/** `at(event, fields)`: one hook invocation of a session, as Claude Code sends it. */
export const hooksOf =
  (acxHome: string, project: string, sessionId: string) => (event: string, extra: Record<string, unknown>) =>
    HookRunner.runHook(
      event,
      JSON.stringify({ session_id: sessionId, transcript_path: "", cwd: project, hook_event_name: event, ...extra }),
      { home: acxHome, env: {} }
    )

/** Rows of a query on the memory database. */
export const query = (acxHome: string, sql: string) => {
  const db = Sqlite.open(MemoryConfig.paths(acxHome).database)
  try {
    return db.prepare(sql).all() as Array<Record<string, any>>
  } finally {
    db.close()
  }
}

/** The memory database provided to an effect. */
export const provideDatabase = <A, E>(acxHome: string, effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  effect.pipe(Effect.provide(MemoryDatabase.layer(MemoryConfig.paths(acxHome).database)))
