/**
 * The memory database for Effect programs (the worker, the CLI's memory commands, the MCP
 * server, the page): an `@effect/sql` SQLite client on `$ACX_HOME/memory.db` with WAL, a busy
 * timeout and the migrations applied first by the memory's one runner, the hook's own
 * (`internal/sqlite.ts`): one list, one runner, one bookkeeping table.
 *
 * @since 0.1.0
 */
import * as AcxHome from "@acx/environment/AcxHome"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import { reRedact } from "./internal/reRedact.js"
import * as Sqlite from "./internal/sqlite.js"
import { BUSY_TIMEOUT_MS } from "./internal/sqlite.js"
import { MemoryError } from "./MemoryError.js"

const databaseError = (file: string) => (cause: unknown) =>
  new MemoryError({
    reason: "Database",
    description: `cannot open the memory database ${file}: ${
      (cause instanceof Error ? cause.message : String(cause)).split("\n")[0]
    }`,
    cause
  })

/**
 * Opens `file` with better-sqlite3 for the memory's one migration runner (`internal/sqlite.ts`,
 * the one the hook uses): WAL, a busy timeout, the missing migrations applied in ONE immediate
 * transaction that checks again once it holds the write lock, so hooks, workers and pages racing
 * on a fresh file apply each migration once; a current file costs one read. Then text stored
 * under older redaction rules is redacted again, once (`internal/reRedact.ts`; one read when not). `mustExist`: a
 * missing file is `NotFound` and nothing is created.
 */
const migrateFile = (file: string, mustExist: boolean) =>
  Effect.try({
    try: () => {
      if (mustExist) {
        const db = new Database(file, { fileMustExist: true })
        try {
          AcxHome.tightenPrivateFile(file)
          Sqlite.configure(db)
          Sqlite.migrate(db)
          reRedact(db)
        } finally {
          db.close()
        }
      } else {
        const db = Sqlite.open(file)
        try {
          reRedact(db)
        } finally {
          db.close()
        }
      }
    },
    catch: (cause) =>
      mustExist && !fs.existsSync(file)
        ? new MemoryError({ reason: "NotFound", description: `no memory database at ${file}`, cause })
        : databaseError(file)(cause)
  })

/**
 * Applies the migrations `file` lacks (creating it, owner-only, when missing), with the runner
 * the hook uses.
 *
 * @since 0.1.0
 * @category migrations
 */
export const migrate = (file: string): Effect.Effect<void, MemoryError> =>
  migrateFile(file, false).pipe(Effect.withSpan("MemoryDatabase.migrate"))

/** The `@effect/sql` client on a migrated file, with the busy timeout and synchronous mode every connection sets. */
const client = (file: string) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(SqliteClient.layer({ filename: file })).pipe(
      Effect.mapError(databaseError(file))
    )
    const sql = yield* Effect.provide(SqlClient.SqlClient, context)
    yield* sql.unsafe(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`).pipe(Effect.mapError(databaseError(file)))
    // as the hook's connection (`Sqlite.configure`): in WAL mode a commit survives the process
    // being killed without an fsync of its own (a backfill commits thousands of batches)
    yield* sql.unsafe("PRAGMA synchronous = NORMAL").pipe(Effect.mapError(databaseError(file)))
    return context
  })

/**
 * A SQLite client on `file` (its directory created), WAL, busy timeout, migrated.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (file: string): Layer.Layer<SqlClient.SqlClient | SqliteClient.SqliteClient, MemoryError> =>
  Layer.scopedContext(Effect.zipRight(migrateFile(file, false), client(file))).pipe(
    Layer.withSpan("MemoryDatabase.layer")
  )

/**
 * A SQLite client on an existing memory database, for readers that must never create one (the
 * `acx ui` page): `NotFound` when the file does not exist. A file that lacks migrations is
 * migrated by the same runner as {@link layer}'s; a current file costs one read.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerExisting = (
  file: string
): Layer.Layer<SqlClient.SqlClient | SqliteClient.SqliteClient, MemoryError> =>
  Layer.scopedContext(Effect.zipRight(migrateFile(file, true), client(file))).pipe(
    Layer.withSpan("MemoryDatabase.layerExisting")
  )
