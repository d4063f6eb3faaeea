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
import { deleteDerived, makeCatalog, resetSession } from "./internal/sqliteDerived.js"
import { classify } from "./internal/sqliteErrors.js"
import { migrate } from "./internal/sqliteMigrations.js"
import { makeOrigins } from "./internal/sqliteOrigins.js"
import * as PhaseBarrier from "./PhaseBarrier.js"
import * as SessionStore from "./SessionStore.js"
import type * as StoreCatalog from "./StoreCatalog.js"

// Rows per INSERT statement: 4 parameters each, under SQLite's default 32 766.
const INSERT_CHUNK = 1000

// The multi-row INSERT text for `rows` rows; full chunks always reuse the same text, so the
// client's prepared-statement cache serves them.
const insertTexts = new Map<number, string>()
const insertText = (rows: number): string => {
  let text = insertTexts.get(rows)
  if (text === undefined) {
    text = `INSERT INTO acx_session_entries (key_id, uuid, entry, created_at) VALUES ${
      Array(rows).fill("(?, ?, ?, ?)").join(",")
    } ON CONFLICT DO NOTHING`
    if (insertTexts.size < 64) insertTexts.set(rows, text)
  }
  return text
}

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

const MAIN = ""

const subpathOf = (key: SessionStore.SessionKey): string => key.subpath ?? MAIN

const uuidOf = (entry: SessionStore.SessionStoreEntry): string | null =>
  typeof entry.uuid === "string" && entry.uuid.length > 0 ? entry.uuid : null

const describe = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

/** A database failure; the read-only and cannot-open cases told as such (see internal/sqliteErrors). */
const storageErrorOf = (operation: string, filename?: string) => (cause: unknown): SessionStore.SessionStoreError => {
  const known = classify(cause, filename)
  return new SessionStore.SessionStoreError({
    reason: known?.reason ?? "Storage",
    operation,
    description: known?.description ?? describe(cause),
    cause
  })
}

const parseJson = (operation: string, text: string): Effect.Effect<unknown, SessionStore.SessionStoreError> =>
  Effect.try({ try: () => JSON.parse(text) as unknown, catch: storageErrorOf(operation) })

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

interface SummaryRow {
  readonly sessionId: string
  readonly mtime: number
  readonly data: string
}

interface SessionRow {
  readonly projectKey: string
  readonly sessionId: string
}

// Multi-row INSERTs (chunked under SQLite's 32 766 bound parameters); a row the unique uuid
// index rejects, already stored or earlier in this batch, is skipped by ON CONFLICT. How many
// rows were inserted.
const insertRows = (
  sql: SqlClient.SqlClient,
  keyId: number,
  uuids: ReadonlyArray<string | null>,
  jsons: ReadonlyArray<string>,
  mtime: number
) =>
  Effect.gen(function*() {
    const count = jsons.length
    let changes = 0
    for (let start = 0; start < count; start += INSERT_CHUNK) {
      const end = Math.min(count, start + INSERT_CHUNK)
      const params = new Array<unknown>((end - start) * 4)
      for (let i = start, p = 0; i < end; i++, p += 4) {
        params[p] = keyId
        params[p + 1] = uuids[i]
        params[p + 2] = jsons[i]
        params[p + 3] = mtime
      }
      const result = (yield* sql.unsafe(insertText(end - start), params).raw) as { readonly changes: number }
      changes += result.changes
    }
    return changes
  })

// What an append stored when some rows were skipped, in call order: every entry without uuid,
// and the first occurrence of each uuid the database accepted, i.e. stored under this key by this
// append: its `changes` newest rows (ids only grow, and the transaction holds the write lock).
const storedEntries = (
  sql: SqlClient.SqlClient,
  keyId: number,
  entries: ReadonlyArray<SessionStore.SessionStoreEntry>,
  uuids: ReadonlyArray<string | null>,
  changes: number
) =>
  Effect.gen(function*() {
    const inserted = yield* sql<{ readonly uuid: string | null }>`SELECT uuid FROM acx_session_entries
      WHERE key_id = ${keyId} ORDER BY id DESC LIMIT ${changes}`
    const insertedUuids = new Set<string>()
    for (const row of inserted) if (row.uuid !== null) insertedUuids.add(row.uuid)
    const kept: Array<SessionStore.SessionStoreEntry> = []
    for (let i = 0; i < entries.length; i++) {
      const uuid = uuids[i] ?? null
      if (uuid === null || insertedUuids.delete(uuid)) kept.push(entries[i]!)
    }
    return kept
  })

const makeStore = (
  sql: SqlClient.SqlClient,
  options: SqliteSessionStoreClientOptions
): ImportLedger.SessionStoreWithLedger & StoreCatalog.WithCatalog => {
  const storageError = (operation: string) => storageErrorOf(operation, options.filename)

  /** Runs `effect` in a transaction that first takes the database write lock (see the module doc). */
  const writeTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    sql.withTransaction(
      Effect.zipRight(sql`UPDATE acx_session_store_clock SET mtime = mtime WHERE id = 1`, effect)
    )

  const nextMtime = Effect.flatMap(
    Clock.currentTimeMillis,
    (now) =>
      sql<{ readonly mtime: number }>`UPDATE acx_session_store_clock SET mtime = max(${now}, mtime + 1)
      WHERE id = 1 RETURNING mtime`.pipe(Effect.map((rows) => Number(rows[0]?.mtime ?? now)))
  )

  const deleteSession = (projectKey: string, sessionId: string) =>
    Effect.all([
      deleteDerived(sql, projectKey, sessionId),
      sql`DELETE FROM acx_session_entries WHERE key_id IN
        (SELECT id FROM acx_session_keys WHERE project_key = ${projectKey} AND session_id = ${sessionId})`,
      sql`DELETE FROM acx_session_keys WHERE project_key = ${projectKey} AND session_id = ${sessionId}`,
      sql`DELETE FROM acx_session_summaries WHERE project_key = ${projectKey} AND session_id = ${sessionId}`
    ], { discard: true })

  const append = Effect.fn("SqliteSessionStore.append")(function*(
    rawKey: SessionStore.SessionKey,
    rawEntries: ReadonlyArray<SessionStore.SessionStoreEntry>
  ) {
    const key = yield* SessionStore.validateKey("append", rawKey)
    const entries = yield* SessionStore.validateEntries("append", rawEntries)
    if (entries.length === 0) return
    const subpath = subpathOf(key)
    const count = entries.length
    const uuids = new Array<string | null>(count)
    const jsons = new Array<string>(count)
    for (let i = 0; i < count; i++) {
      const entry = entries[i]!
      uuids[i] = uuidOf(entry)
      jsons[i] = JSON.stringify(entry)
    }
    yield* Effect.annotateCurrentSpan({ projectKey: key.projectKey, sessionId: key.sessionId, subpath })
    yield* sql.withTransaction(Effect.gen(function*() {
      const mtime = yield* nextMtime
      // The key row first, for its id: a new key gets this append's mtime, an existing one keeps
      // its own (older: the clock is strictly increasing) until something is actually stored.
      const keyRows = yield* sql<{ readonly id: number; readonly mtime: number }>`INSERT INTO acx_session_keys
        (project_key, session_id, subpath, mtime) VALUES (${key.projectKey}, ${key.sessionId}, ${subpath}, ${mtime})
        ON CONFLICT (project_key, session_id, subpath) DO UPDATE SET mtime = acx_session_keys.mtime
        RETURNING id, mtime`
      const keyId = Number(keyRows[0]!.id)
      const newKey = Number(keyRows[0]!.mtime) === mtime
      const changes = yield* insertRows(sql, keyId, uuids, jsons, mtime)
      const stored = changes === count ? entries : yield* storedEntries(sql, keyId, entries, uuids, changes)
      if (stored.length === 0) {
        // nothing stored: leave the key as it was (a new key cannot get here, but stays unwritten)
        if (newKey) yield* sql`DELETE FROM acx_session_keys WHERE id = ${keyId}`
        return
      }
      if (!newKey) yield* sql`UPDATE acx_session_keys SET mtime = ${mtime} WHERE id = ${keyId}`
      if (!SessionStore.isMainKey(key)) return
      const previous = yield* sql<SummaryRow>`SELECT session_id AS "sessionId", mtime, data
        FROM acx_session_summaries WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId}`
      const prev = previous[0] === undefined ? undefined : {
        sessionId: previous[0].sessionId,
        mtime: Number(previous[0].mtime),
        data: (yield* parseJson("append", previous[0].data)) as Record<string, unknown>
      }
      const summary = yield* SessionStore.foldSummary(prev, key, stored, mtime)
      yield* sql`INSERT INTO acx_session_summaries (project_key, session_id, mtime, data)
        VALUES (${key.projectKey}, ${key.sessionId}, ${summary.mtime}, ${JSON.stringify(summary.data)})
        ON CONFLICT (project_key, session_id) DO UPDATE SET mtime = excluded.mtime, data = excluded.data`
    })).pipe(
      Effect.catchTag("SqlError", (cause) => Effect.fail(storageError("append")(cause))),
      // a failed COMMIT surfaces as a defect from `withTransaction`
      Effect.catchAllDefect((cause) => Effect.fail(storageError("append")(cause)))
    )
  })

  const load = Effect.fn("SqliteSessionStore.load")(function*(rawKey: SessionStore.SessionKey) {
    const key = yield* SessionStore.validateKey("load", rawKey)
    const subpath = subpathOf(key)
    const rows = yield* sql<EntryRow>`SELECT id, entry FROM acx_session_entries
      WHERE key_id = (SELECT id FROM acx_session_keys
        WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId} AND subpath = ${subpath})
      ORDER BY id`.pipe(Effect.mapError(storageError("load")))
    if (rows.length === 0) return null
    return yield* CorruptEntry.decodeRows(key, rows, options.onCorruptEntry)
  })

  const listSessions = Effect.fn("SqliteSessionStore.listSessions")(function*(projectKey: string) {
    const rows = yield* sql<KeyRow>`SELECT session_id AS "sessionId", mtime FROM acx_session_keys
      WHERE project_key = ${projectKey} AND subpath = ${MAIN}`.pipe(Effect.mapError(storageError("listSessions")))
    return rows.map((row): SessionStore.SessionListing => ({ sessionId: row.sessionId, mtime: Number(row.mtime) }))
  })

  const listSessionSummaries = Effect.fn("SqliteSessionStore.listSessionSummaries")(function*(projectKey: string) {
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

  const remove = Effect.fn("SqliteSessionStore.delete")(function*(rawKey: SessionStore.SessionKey) {
    const key = yield* SessionStore.validateKey("delete", rawKey)
    const subpath = subpathOf(key)
    yield* writeTransaction(Effect.zipRight(
      // a delete moves the clock too: a reader that follows the store (the web page) sees it
      nextMtime,
      SessionStore.isMainKey(key)
        ? deleteSession(key.projectKey, key.sessionId)
        : Effect.all([
          deleteDerived(sql, key.projectKey, key.sessionId, subpath),
          sql`DELETE FROM acx_session_entries WHERE key_id = (SELECT id FROM acx_session_keys
            WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId} AND subpath = ${subpath})`,
          sql`DELETE FROM acx_session_keys
            WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId} AND subpath = ${subpath}`,
          // the session's counts lose what the subagent added: derived again from what is left
          resetSession(sql, key.projectKey, key.sessionId)
        ], { discard: true })
    )).pipe(
      Effect.mapError(storageError("delete")),
      Effect.catchAllDefect((cause) => Effect.fail(storageError("delete")(cause)))
    )
  })

  const listSubkeys = Effect.fn("SqliteSessionStore.listSubkeys")(function*(rawKey: SessionStore.MainSessionKey) {
    const key = yield* SessionStore.validateKey("listSubkeys", rawKey)
    const rows = yield* sql<{ readonly subpath: string }>`SELECT subpath FROM acx_session_keys
      WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId} AND subpath <> ${MAIN}
      ORDER BY subpath`.pipe(Effect.mapError(storageError("listSubkeys")))
    return rows.map((row) => row.subpath)
  })

  const deleteOlderThan = Effect.fn("SqliteSessionStore.deleteOlderThan")(function*(
    cutoff: number,
    options?: { readonly projectKey?: string | undefined }
  ) {
    const projectKey = options?.projectKey
    return yield* writeTransaction(Effect.gen(function*() {
      const sessions = yield* sql<SessionRow>`SELECT project_key AS "projectKey", session_id AS "sessionId"
        FROM acx_session_keys
        ${projectKey === undefined ? sql`` : sql`WHERE project_key = ${projectKey}`}
        GROUP BY project_key, session_id HAVING MAX(mtime) < ${cutoff}`
      yield* Effect.forEach(sessions, (session) => deleteSession(session.projectKey, session.sessionId), {
        discard: true
      })
      return sessions.length
    })).pipe(
      Effect.mapError(storageError("deleteOlderThan")),
      Effect.catchAllDefect((cause) => Effect.fail(storageError("deleteOlderThan")(cause)))
    )
  })

  const importedFiles = Effect.fn("SqliteSessionStore.importedFiles")(function*(source: string) {
    // the statement the CLI's fast path of an unchanged sync runs too (ImportLedgerSql)
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

  const appendImported = Effect.fn("SqliteSessionStore.appendImported")(function*(
    key: SessionStore.SessionKey,
    entries: ReadonlyArray<SessionStore.SessionStoreEntry>,
    advance: ImportLedger.LedgerAdvance
  ) {
    const { next, source } = advance
    // the write lock first, so the record read below cannot change before the commit
    return yield* writeTransaction(Effect.gen(function*() {
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
      Effect.catchTag("SqlError", (cause) => Effect.fail(storageError("appendImported")(cause))),
      Effect.catchAllDefect((cause) => Effect.fail(storageError("appendImported")(cause)))
    )
  })

  return {
    append,
    load,
    listSessions,
    listSessionSummaries,
    delete: remove,
    listSubkeys,
    deleteOlderThan,
    importedFiles,
    appendImported,
    ...makeOrigins(sql, writeTransaction, storageError),
    catalog: makeCatalog(sql, writeTransaction, storageError)
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
