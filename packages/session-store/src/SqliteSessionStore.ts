/**
 * The embedded {@link SessionStore.SessionStore} adapter: one SQLite file (WAL mode), safe to
 * share between processes on the same machine.
 *
 * Schema (created by the `@effect/sql` Migrator; migrations recorded in
 * `acx_session_store_migrations`):
 * - `acx_session_keys (id INTEGER PRIMARY KEY, project_key TEXT, session_id TEXT, subpath TEXT,
 *   mtime INTEGER)`, UNIQUE `(project_key, session_id, subpath)`: every written key with its
 *   mtime, for `listSessions` (`subpath = ''` is the main transcript), `listSubkeys`
 *   (`subpath <> ''`) and retention; `id` is the key's compact handle in the entries table.
 * - `acx_session_entries (id INTEGER PRIMARY KEY AUTOINCREMENT, key_id INTEGER NOT NULL,
 *   uuid TEXT NULL, entry TEXT NOT NULL, created_at INTEGER NOT NULL)`: one row per stored
 *   transcript line of the key `key_id`, the entry as JSON text. Indexes: `(key_id, id)` for
 *   `load`, and a UNIQUE index on `(key_id, uuid) WHERE uuid IS NOT NULL` that makes `uuid` an
 *   idempotency key across connections and processes (`INSERT … ON CONFLICT DO NOTHING`).
 *   Entries are deleted together with their key row (no foreign key; the adapter does it).
 * - `acx_session_summaries (project_key, session_id, mtime INTEGER, data TEXT)`, primary key
 *   `(project_key, session_id)`: the SDK's `SessionSummaryEntry` of each main transcript, `data`
 *   stored verbatim as JSON.
 * - `acx_session_store_clock (id INTEGER PRIMARY KEY CHECK (id = 1), mtime INTEGER)`: one row,
 *   the last mtime handed out, so the clock is strictly increasing across the whole file.
 * - `acx_session_import_ledger (source, file, size, mtime_ms, "offset", fingerprint)`, primary key
 *   `(source, file)`: the {@link ImportLedger} (what an import took of each source file), written
 *   in the same transaction as the entries (`appendImported`).
 * - Derived data (migration 3; see `StoreCatalog` and `internal/sqliteDerived.ts`):
 *   `acx_session_meta` (per session: metadata fold state and counts), `acx_session_usage` (per
 *   API message of each key), `acx_session_text` + the FTS5 table `acx_session_text_fts` (the
 *   search index), and on each key row `derived_id` / `derived_mtime`, the watermark every
 *   catalog read advances before it reads.
 *
 * Every write runs in one transaction whose first statement writes the clock row
 * (`UPDATE … SET mtime = max(now, mtime + 1) … RETURNING mtime`): SQLite takes the database
 * write lock right there, before anything is read, so concurrent writers (other connections or
 * processes) wait on `busy_timeout` instead of failing on a lock upgrade, and each append's
 * read-fold-write of the summary sees the latest committed state. Migrations are serialised the
 * same way.
 *
 * Choices where the SDK contract leaves room:
 * - `append(key, [])` stores nothing and leaves the key unwritten (`load` stays `null`), unlike
 *   the SDK's `InMemorySessionStore`, which records an empty key.
 * - An entry whose `uuid` is already stored under the key (or repeated in the batch) is skipped;
 *   the summary folds only the entries actually stored, so it always equals a fresh fold over
 *   `load`. A batch made only of already-stored entries changes nothing (no mtime bump).
 * - Retention (`deleteOlderThan`) measures a session by the newest mtime of any of its keys, so
 *   a session whose subagent is still writing is never cut.
 * - A stored row that is not an entry (unparseable text, or JSON that is not an object with a
 *   string `type`, written by something else) is skipped by `load` and reported (see
 *   `CorruptEntry`), not fatal.
 *
 * Errors: a database that cannot be written (a read-only file, or a directory where SQLite
 * cannot create its `-wal`/`-shm` files) fails with reason `ReadOnly`, "database is read-only:
 * FILE"; an empty `filename` (SQLite would open a temporary database, dropped on close) is
 * rejected with reason `InvalidOption` when the store is constructed.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as CorruptEntry from "./CorruptEntry.js"
import * as ImportLedger from "./ImportLedger.js"
import * as ImportLedgerSql from "./ImportLedgerSql.js"
import { importDriver } from "./internal/driver.js"
import { type AppendContext, MAIN, makeAppend, subpathOf, type SummaryRow } from "./internal/sqliteAppend.js"
import { deleteDerived, makeCatalog, resetSession } from "./internal/sqliteDerived.js"
import { classify, describe, parseJson, storageErrorOf } from "./internal/sqliteErrors.js"
import { migrate } from "./internal/sqliteMigrations.js"
import { makeOrigins } from "./internal/sqliteOrigins.js"
import * as PhaseBarrier from "./PhaseBarrier.js"
import * as SessionStore from "./SessionStore.js"
import type * as StoreCatalog from "./StoreCatalog.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface SqliteSessionStoreOptions {
  /** The SQLite file (created if missing). */
  readonly filename: string
  /** How long a write waits for another connection's lock (SQLite `busy_timeout`; default 5 s). */
  readonly busyTimeout?: Duration.DurationInput | undefined
  /** Told about every stored row `load` skips as corrupt (see `CorruptEntry`). */
  readonly onCorruptEntry?: CorruptEntry.OnCorruptEntry | undefined
}

/**
 * The options of {@link makeWithClient}: the store on an application's own `SqlClient`.
 *
 * @since 0.1.0
 * @category models
 */
export interface SqliteSessionStoreClientOptions {
  /** See {@link SqliteSessionStoreOptions.busyTimeout}. */
  readonly busyTimeout?: Duration.DurationInput | undefined
  /** See {@link SqliteSessionStoreOptions.onCorruptEntry}. */
  readonly onCorruptEntry?: CorruptEntry.OnCorruptEntry | undefined
  /** The client's file, for error messages ("database is read-only: FILE"). */
  readonly filename?: string | undefined
}

/**
 * Checks the options without any I/O: `filename` a non-empty path without NUL (an empty one
 * would make SQLite open a temporary database that is dropped on close). The Promise
 * constructor throws what this returns; `make` fails with it before opening anything.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateOptions = (
  options: { readonly filename?: unknown }
): Either.Either<string, SessionStore.SessionStoreError> =>
  typeof options.filename === "string" && options.filename !== "" && !options.filename.includes("\0")
    ? Either.right(options.filename)
    : Either.left(
      new SessionStore.SessionStoreError({
        reason: "InvalidOption",
        operation: "make",
        description: `filename must be a non-empty path without NUL, got ${JSON.stringify(options.filename)}`
      })
    )

/**
 * Opens (and migrates) the SQLite file and returns the store; the connection is closed with the
 * scope. The driver, `@effect/sql-sqlite-node`, is an optional peer loaded here: without it this
 * fails with `MissingDriver`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: SqliteSessionStoreOptions
): Effect.Effect<
  ImportLedger.SessionStoreWithLedger & StoreCatalog.WithCatalog,
  SessionStore.SessionStoreError,
  Scope.Scope
> =>
  Effect.gen(function*() {
    yield* validateOptions(options)
    const Sqlite = yield* importDriver("@effect/sql-sqlite-node", () => import("@effect/sql-sqlite-node/SqliteClient"))
    const context = yield* Layer.build(Sqlite.layer({ filename: options.filename })).pipe(
      Effect.mapError(storageErrorOf("open", options.filename))
    )
    return yield* makeWithClient(options).pipe(
      Effect.provideService(SqlClient.SqlClient, Context.get(context, SqlClient.SqlClient))
    )
  }).pipe(
    Effect.catchAllCause((cause) => {
      if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
      const error = Cause.squash(cause)
      // Opening a file SQLite cannot open throws from the driver's constructor (a defect).
      const known = error instanceof SessionStore.SessionStoreError ? undefined : classify(error, options.filename)
      return Effect.fail(
        error instanceof SessionStore.SessionStoreError &&
          (error.reason === "MissingDriver" || error.reason === "InvalidOption" || error.reason === "ReadOnly" ||
            error.reason === "Locked")
          ? error
          : known !== undefined
          ? new SessionStore.SessionStoreError({ ...known, operation: "open", cause })
          : new SessionStore.SessionStoreError({
            reason: "Storage",
            operation: "open",
            description: `cannot open session store ${options.filename}: ${
              error instanceof SessionStore.SessionStoreError ? error.description : describe(error)
            }`,
            cause
          })
      )
    }),
    Effect.withSpan("SqliteSessionStore.make", { attributes: { filename: options.filename } })
  )

/**
 * Builds the store on the SQLite `SqlClient` in context (e.g. an application's own
 * `SqliteClient.layer`), sets its busy timeout and runs the migrations.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeWithClient = (
  options: SqliteSessionStoreClientOptions = {}
): Effect.Effect<
  ImportLedger.SessionStoreWithLedger & StoreCatalog.WithCatalog,
  SessionStore.SessionStoreError,
  SqlClient.SqlClient
> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const busyMillis = Math.max(0, Math.round(Duration.toMillis(options.busyTimeout ?? Duration.seconds(5))))
    yield* sql.unsafe(`PRAGMA busy_timeout = ${busyMillis}`)
    yield* sql`PRAGMA synchronous = NORMAL`
    yield* migrate
    return makeStore(sql, options)
  }).pipe(
    Effect.mapError((error) =>
      error instanceof SessionStore.SessionStoreError ? error : storageErrorOf("open", options.filename)(error)
    )
  )

interface EntryRow {
  readonly id: number
  readonly entry: string
}

interface KeyRow {
  readonly sessionId: string
  readonly mtime: number
}

interface SessionRow {
  readonly projectKey: string
  readonly sessionId: string
}

/** What the store's functions share: the write path's context, and the write transaction. */
interface StoreContext extends AppendContext {
  /** Runs `effect` in a transaction that first takes the database write lock (see the module doc). */
  readonly writeTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>
}

/** Fails a write's SQL error, and its failed COMMIT (a defect from `withTransaction`), as the store's. */
const failedWrite = (context: StoreContext, operation: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.mapError(context.storageError(operation)),
    Effect.catchAllDefect((cause) => Effect.fail(context.storageError(operation)(cause)))
  )

/** Deletes a whole session: its derived rows, entries, keys and summary. */
const deleteSession = (sql: SqlClient.SqlClient, projectKey: string, sessionId: string) =>
  Effect.all([
    deleteDerived(sql, projectKey, sessionId),
    sql`DELETE FROM acx_session_entries WHERE key_id IN
      (SELECT id FROM acx_session_keys WHERE project_key = ${projectKey} AND session_id = ${sessionId})`,
    sql`DELETE FROM acx_session_keys WHERE project_key = ${projectKey} AND session_id = ${sessionId}`,
    sql`DELETE FROM acx_session_summaries WHERE project_key = ${projectKey} AND session_id = ${sessionId}`
  ], { discard: true })

/** Deletes one subagent's key; the session's derived counts are derived again from what is left. */
const deleteSubkey = (sql: SqlClient.SqlClient, key: SessionStore.SessionKey) => {
  const subpath = subpathOf(key)
  return Effect.all([
    deleteDerived(sql, key.projectKey, key.sessionId, subpath),
    sql`DELETE FROM acx_session_entries WHERE key_id = (SELECT id FROM acx_session_keys
      WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId} AND subpath = ${subpath})`,
    sql`DELETE FROM acx_session_keys
      WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId} AND subpath = ${subpath}`,
    resetSession(sql, key.projectKey, key.sessionId)
  ], { discard: true })
}

const makeLoad = ({ sql, storageError }: StoreContext, onCorruptEntry: CorruptEntry.OnCorruptEntry | undefined) =>
  Effect.fn("SqliteSessionStore.load")(function*(rawKey: SessionStore.SessionKey) {
    const key = yield* SessionStore.validateKey("load", rawKey)
    const rows = yield* sql<EntryRow>`SELECT id, entry FROM acx_session_entries
      WHERE key_id = (SELECT id FROM acx_session_keys
        WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId} AND subpath = ${subpathOf(key)})
      ORDER BY id`.pipe(Effect.mapError(storageError("load")))
    if (rows.length === 0) return null
    return yield* CorruptEntry.decodeRows(key, rows, onCorruptEntry)
  })

const makeListSessions = ({ sql, storageError }: StoreContext) =>
  Effect.fn("SqliteSessionStore.listSessions")(function*(projectKey: string) {
    const rows = yield* sql<KeyRow>`SELECT session_id AS "sessionId", mtime FROM acx_session_keys
      WHERE project_key = ${projectKey} AND subpath = ${MAIN}`.pipe(Effect.mapError(storageError("listSessions")))
    return rows.map((row): SessionStore.SessionListing => ({ sessionId: row.sessionId, mtime: Number(row.mtime) }))
  })

const makeListSessionSummaries = ({ sql, storageError }: StoreContext) =>
  Effect.fn("SqliteSessionStore.listSessionSummaries")(function*(projectKey: string) {
    const rows = yield* sql<SummaryRow>`SELECT session_id AS "sessionId", mtime, data FROM acx_session_summaries
      WHERE project_key = ${projectKey}`.pipe(Effect.mapError(storageError("listSessionSummaries")))
    return yield* Effect.forEach(
      rows,
      (row) =>
        Effect.map(parseJson("listSessionSummaries", row.data), (data): SessionStore.SessionSummaryEntry => ({
          sessionId: row.sessionId,
          mtime: Number(row.mtime),
          data: data as Record<string, unknown>
        }))
    )
  })

const makeDelete = (context: StoreContext) =>
  Effect.fn("SqliteSessionStore.delete")(function*(rawKey: SessionStore.SessionKey) {
    const key = yield* SessionStore.validateKey("delete", rawKey)
    yield* context.writeTransaction(Effect.zipRight(
      // a delete moves the clock too: a reader that follows the store (the web page) sees it
      context.nextMtime,
      SessionStore.isMainKey(key)
        ? deleteSession(context.sql, key.projectKey, key.sessionId)
        : deleteSubkey(context.sql, key)
    )).pipe(failedWrite(context, "delete"))
  })

const makeListSubkeys = ({ sql, storageError }: StoreContext) =>
  Effect.fn("SqliteSessionStore.listSubkeys")(function*(rawKey: SessionStore.MainSessionKey) {
    const key = yield* SessionStore.validateKey("listSubkeys", rawKey)
    const rows = yield* sql<{ readonly subpath: string }>`SELECT subpath FROM acx_session_keys
      WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId} AND subpath <> ${MAIN}
      ORDER BY subpath`.pipe(Effect.mapError(storageError("listSubkeys")))
    return rows.map((row) => row.subpath)
  })

const makeDeleteOlderThan = (context: StoreContext) =>
  Effect.fn("SqliteSessionStore.deleteOlderThan")(function*(
    cutoff: number,
    options?: { readonly projectKey?: string | undefined }
  ) {
    const { sql } = context
    const projectKey = options?.projectKey
    return yield* context.writeTransaction(Effect.gen(function*() {
      const sessions = yield* sql<SessionRow>`SELECT project_key AS "projectKey", session_id AS "sessionId"
        FROM acx_session_keys
        ${projectKey === undefined ? sql`` : sql`WHERE project_key = ${projectKey}`}
        GROUP BY project_key, session_id HAVING MAX(mtime) < ${cutoff}`
      yield* Effect.forEach(sessions, (session) => deleteSession(sql, session.projectKey, session.sessionId), {
        discard: true
      })
      return sessions.length
    })).pipe(failedWrite(context, "deleteOlderThan"))
  })

const makeImportedFiles = ({ sql, storageError }: StoreContext) =>
  Effect.fn("SqliteSessionStore.importedFiles")(function*(source: string) {
    // the statement the first step of `acx sync` runs too (ImportLedgerSql)
    const rows = yield* sql.unsafe<ImportLedgerSql.LedgerRow>(ImportLedgerSql.IMPORTED_FILES, [source]).pipe(
      Effect.mapError(storageError("importedFiles"))
    )
    return rows.map((row): ImportLedger.ImportedFile => ({
      file: row.file,
      size: Number(row.size),
      mtimeMs: Number(row.mtimeMs),
      offset: Number(row.offset),
      fingerprint: row.fingerprint
    }))
  })

const makeAppendImported = (context: StoreContext, append: SessionStore.SessionStore["append"]) =>
  Effect.fn("SqliteSessionStore.appendImported")(function*(
    key: SessionStore.SessionKey,
    entries: ReadonlyArray<SessionStore.SessionStoreEntry>,
    advance: ImportLedger.LedgerAdvance
  ) {
    const { sql } = context
    const { next, source } = advance
    // the write lock first, so the record read below cannot change before the commit
    return yield* context.writeTransaction(Effect.gen(function*() {
      const [stored] = yield* sql<
        Pick<ImportLedgerSql.LedgerRow, "offset" | "fingerprint">
      >`SELECT "offset", fingerprint
        FROM acx_session_import_ledger WHERE source = ${source} AND file = ${next.file}`
      const current = stored === undefined
        ? undefined
        : { offset: Number(stored.offset), fingerprint: stored.fingerprint }
      if (!ImportLedger.isExpected(current, advance.expected)) return false
      yield* append(key, entries)
      yield* PhaseBarrier.pause("append")
      yield* sql`INSERT INTO acx_session_import_ledger (source, file, size, mtime_ms, "offset", fingerprint)
        VALUES (${source}, ${next.file}, ${next.size}, ${next.mtimeMs}, ${next.offset}, ${next.fingerprint})
        ON CONFLICT (source, file) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms,
          "offset" = excluded."offset", fingerprint = excluded.fingerprint`
      return true
    })).pipe(
      Effect.catchTag("SqlError", (cause) => Effect.fail(context.storageError("appendImported")(cause))),
      Effect.catchAllDefect((cause) => Effect.fail(context.storageError("appendImported")(cause)))
    )
  })

const makeStore = (
  sql: SqlClient.SqlClient,
  options: SqliteSessionStoreClientOptions
): ImportLedger.SessionStoreWithLedger & StoreCatalog.WithCatalog => {
  const context: StoreContext = {
    sql,
    storageError: (operation) => storageErrorOf(operation, options.filename),
    writeTransaction: (effect) =>
      sql.withTransaction(Effect.zipRight(sql`UPDATE acx_session_store_clock SET mtime = mtime WHERE id = 1`, effect)),
    nextMtime: Effect.flatMap(
      Clock.currentTimeMillis,
      (now) =>
        sql<{ readonly mtime: number }>`UPDATE acx_session_store_clock SET mtime = max(${now}, mtime + 1)
        WHERE id = 1 RETURNING mtime`.pipe(Effect.map((rows) => Number(rows[0]?.mtime ?? now)))
    )
  }
  const append = makeAppend(context)
  return {
    append,
    load: makeLoad(context, options.onCorruptEntry),
    listSessions: makeListSessions(context),
    listSessionSummaries: makeListSessionSummaries(context),
    delete: makeDelete(context),
    listSubkeys: makeListSubkeys(context),
    deleteOlderThan: makeDeleteOlderThan(context),
    importedFiles: makeImportedFiles(context),
    appendImported: makeAppendImported(context, append),
    ...makeOrigins(sql, context.writeTransaction, context.storageError),
    catalog: makeCatalog(sql, context.writeTransaction, context.storageError)
  }
}

/**
 * The store as a layer (the file is closed when the layer is released).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: SqliteSessionStoreOptions
): Layer.Layer<SessionStore.SessionStore, SessionStore.SessionStoreError> =>
  Layer.scoped(SessionStore.SessionStore, make(options))

/**
 * The store on the SQLite `SqlClient` in context (see {@link makeWithClient}).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWithClient = (
  options: SqliteSessionStoreClientOptions = {}
): Layer.Layer<SessionStore.SessionStore, SessionStore.SessionStoreError, SqlClient.SqlClient> =>
  Layer.effect(SessionStore.SessionStore, makeWithClient(options))

/**
 * The store as a layer, its options read from `Config` (e.g.
 * `layerConfig({ filename: Config.string("ACX_SESSIONS_FILE") })`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: Config.Config.Wrap<SqliteSessionStoreOptions>
): Layer.Layer<SessionStore.SessionStore, SessionStore.SessionStoreError | ConfigError.ConfigError> =>
  Layer.scoped(SessionStore.SessionStore, Effect.flatMap(Config.unwrap(options), make))

/**
 * The store for `query({ options: { sessionStore } })` and the SDK's session functions: every
 * optional `SessionStore` method, plus `deleteOlderThan`, `close()` and `Symbol.asyncDispose`.
 * Methods reject with {@link SessionStore.SessionStoreError}; invalid options throw it (reason
 * `InvalidOption`) right here, the file opens on first use.
 *
 * @since 0.1.0
 * @category constructors
 */
export const createSqliteSessionStore = (options: SqliteSessionStoreOptions): SessionStore.SdkSessionStore => {
  const checked = validateOptions(options)
  if (Either.isLeft(checked)) throw checked.left
  return SessionStore.toSdk(layer(options))
}
