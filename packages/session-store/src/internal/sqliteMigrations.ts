/**
 * The tables of `SqliteSessionStore` (see its module comment), created by the `@effect/sql`
 * Migrator; migrations are recorded in `acx_session_store_migrations`.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { createTables } from "./sqliteDerived.js"
import { createOriginTable } from "./sqliteOrigins.js"

const MIGRATIONS_TABLE = "acx_session_store_migrations"

const migrations = Migrator.fromRecord({
  "1_session_store": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE acx_session_keys (
      id INTEGER PRIMARY KEY,
      project_key TEXT NOT NULL,
      session_id TEXT NOT NULL,
      subpath TEXT NOT NULL,
      mtime INTEGER NOT NULL,
      UNIQUE (project_key, session_id, subpath)
    )`
    yield* sql`CREATE TABLE acx_session_entries (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      key_id INTEGER NOT NULL,
      uuid TEXT NULL,
      entry TEXT NOT NULL,
      created_at INTEGER NOT NULL
    )`
    yield* sql`CREATE INDEX acx_session_entries_key ON acx_session_entries (key_id, id)`
    yield* sql`CREATE UNIQUE INDEX acx_session_entries_uuid
      ON acx_session_entries (key_id, uuid) WHERE uuid IS NOT NULL`
    yield* sql`CREATE INDEX acx_session_keys_mtime ON acx_session_keys (mtime)`
    yield* sql`CREATE TABLE acx_session_summaries (
      project_key TEXT NOT NULL,
      session_id TEXT NOT NULL,
      mtime INTEGER NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (project_key, session_id)
    )`
    yield* sql`CREATE TABLE acx_session_store_clock (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      mtime INTEGER NOT NULL
    )`
    yield* sql`INSERT INTO acx_session_store_clock (id, mtime) VALUES (1, 0)`
  }),
  "2_import_ledger": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE acx_session_import_ledger (
      source TEXT NOT NULL,
      file TEXT NOT NULL,
      size INTEGER NOT NULL,
      mtime_ms REAL NOT NULL,
      "offset" INTEGER NOT NULL,
      fingerprint TEXT NOT NULL,
      PRIMARY KEY (source, file)
    )`
  }),
  // Session metadata, per-message usage and the full-text index (see sqliteDerived); the entries
  // a store written by an older acx holds derive on the first catalog read: no re-import.
  "3_derived_data": createTables,
  // where each session came from (SessionOrigins): machine, OS user, project across machines
  "4_session_origin": Effect.flatMap(SqlClient.SqlClient, createOriginTable)
})

const runMigrator = Migrator.make({})

/**
 * Runs the migrations. The Migrator's own table is created up front so that the migration
 * transaction can start with a write to it: that takes the write lock before the Migrator reads
 * anything, so two processes opening a fresh file migrate one after the other.
 */
export const migrate = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS acx_session_store_migrations (
    migration_id integer PRIMARY KEY NOT NULL,
    created_at datetime NOT NULL DEFAULT current_timestamp,
    name VARCHAR(255) NOT NULL
  )`
  yield* sql.withTransaction(
    sql`DELETE FROM acx_session_store_migrations WHERE migration_id < 0`.pipe(
      Effect.zipRight(runMigrator({ loader: migrations, table: MIGRATIONS_TABLE }))
    )
  )
})
