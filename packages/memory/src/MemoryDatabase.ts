/**
 * The memory database for Effect programs (the worker, the CLI's memory commands, the MCP
 * server): an `@effect/sql` SQLite client on `$ACX_HOME/memory.db` with WAL, a busy timeout and
 * the migrations applied by `@effect/sql`'s Migrator (the same list the hook applies itself).
 *
 * @since 0.1.0
 */
import * as AcxHome from "@acx/environment/AcxHome"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import { migrations, MIGRATIONS_TABLE } from "./internal/migrations.js"
import * as Sqlite from "./internal/sqlite.js"
import { BUSY_TIMEOUT_MS } from "./internal/sqlite.js"
import { MemoryError } from "./MemoryError.js"

const runMigrations = Migrator.make({})

/**
 * The migrations as the Migrator loads them.
 *
 * @since 0.1.0
 * @category migrations
 */
export const loader: Migrator.Loader = Migrator.fromRecord(
  Object.fromEntries(migrations.map((migration) => [
    `${migration.id}_${migration.name}`,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      for (const statement of migration.statements) yield* sql.unsafe(statement)
    })
  ]))
)

const databaseError = (file: string) => (cause: unknown) =>
  new MemoryError({
    reason: "Database",
    description: `cannot open the memory database ${file}: ${
      (cause instanceof Error ? cause.message : String(cause)).split("\n")[0]
    }`,
    cause
  })

/**
 * Applies the migrations the database lacks.
 *
 * @since 0.1.0
 * @category migrations
 */
export const migrate: Effect.Effect<void, MemoryError, SqlClient.SqlClient> = runMigrations({
  loader,
  table: MIGRATIONS_TABLE
}).pipe(
  Effect.asVoid,
  Effect.mapError((cause) =>
    new MemoryError({
      reason: "Database",
      description: `migrating the memory database failed: ${cause.message}`,
      cause
    })
  ),
  Effect.withSpan("MemoryDatabase.migrate")
)

/**
 * A SQLite client on `file` (its directory created), WAL, busy timeout, migrated.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (file: string): Layer.Layer<SqlClient.SqlClient | SqliteClient.SqliteClient, MemoryError> =>
  Layer.scopedContext(
    Effect.gen(function*() {
      yield* Effect.try({
        // owner-only before SQLite opens it: its -wal and -shm get the same mode
        try: () => AcxHome.preparePrivateFile(file),
        catch: databaseError(file)
      })
      const context = yield* Layer.build(SqliteClient.layer({ filename: file })).pipe(
        Effect.mapError(databaseError(file))
      )
      const sql = yield* Effect.provide(SqlClient.SqlClient, context)
      yield* sql.unsafe(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`).pipe(Effect.mapError(databaseError(file)))
      yield* Effect.provide(migrate, context)
      return context
    })
  )

/**
 * A SQLite client on an existing memory database, for readers that must never create one (the
 * `acx ui` page): `NotFound` when the file does not exist. A file that lacks migrations is
 * migrated the way the hook does it (one immediate transaction that checks again once it holds
 * the write lock), so a hook, the worker or another page migrating at the same time cannot apply
 * a migration twice; a current file costs one read.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerExisting = (
  file: string
): Layer.Layer<SqlClient.SqlClient | SqliteClient.SqliteClient, MemoryError> =>
  Layer.scopedContext(
    Effect.gen(function*() {
      yield* Effect.try({
        try: () => {
          const db = new Database(file, { fileMustExist: true })
          AcxHome.tightenPrivateFile(file)
          try {
            Sqlite.configure(db)
            Sqlite.migrate(db)
          } finally {
            db.close()
          }
        },
        catch: (cause) =>
          !fs.existsSync(file)
            ? new MemoryError({ reason: "NotFound", description: `no memory database at ${file}`, cause })
            : databaseError(file)(cause)
      })
      const context = yield* Layer.build(SqliteClient.layer({ filename: file })).pipe(
        Effect.mapError(databaseError(file))
      )
      const sql = yield* Effect.provide(SqlClient.SqlClient, context)
      yield* sql.unsafe(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`).pipe(Effect.mapError(databaseError(file)))
      return context
    })
  ).pipe(Layer.withSpan("MemoryDatabase.layerExisting"))
