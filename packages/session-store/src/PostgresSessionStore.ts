/**
 * A PostgreSQL {@link SessionStore.SessionStore} on `@effect/sql-pg`.
 *
 * Schema (all tables live in one Postgres schema, `public` unless `schema` is given; created by
 * the `@effect/sql` Migrator, whose bookkeeping table is `acx_session_store_migrations`):
 *
 * ```sql
 * -- one row per entry, keyed by project, session and subpath; `uuid` makes appends idempotent
 * CREATE TABLE claude_session_entries (
 *   id BIGSERIAL PRIMARY KEY,
 *   project_key TEXT NOT NULL,
 *   session_id TEXT NOT NULL,
 *   subpath TEXT NOT NULL DEFAULT '',          -- '' = main transcript
 *   entry JSON NOT NULL,                        -- JSONB before migration 2 (see below)
 *   created_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
 *   uuid TEXT NULL                              -- entry.uuid when it is a string
 * );
 * CREATE INDEX claude_session_entries_key_idx
 *   ON claude_session_entries (project_key, session_id, subpath, id);
 * CREATE UNIQUE INDEX claude_session_entries_uuid_idx
 *   ON claude_session_entries (project_key, session_id, subpath, uuid) WHERE uuid IS NOT NULL;
 * -- one row per written key: the store-clock mtime of its last append
 * CREATE TABLE acx_session_keys (
 *   project_key TEXT NOT NULL, session_id TEXT NOT NULL, subpath TEXT NOT NULL,
 *   mtime BIGINT NOT NULL, PRIMARY KEY (project_key, session_id, subpath)
 * );
 * -- the SDK's folded summary per main transcript
 * CREATE TABLE acx_session_summaries (
 *   project_key TEXT NOT NULL, session_id TEXT NOT NULL,
 *   mtime BIGINT NOT NULL, data JSON NOT NULL, PRIMARY KEY (project_key, session_id)
 * );
 * -- the store clock: one row, strictly increasing epoch milliseconds
 * CREATE TABLE acx_clock (id BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (id), last BIGINT NOT NULL);
 * -- the ImportLedger: what an import took of each source file (see ImportLedger.ts)
 * -- (migration 9: each writer's records in a key space of their own, see ImportLedger.ts)
 * CREATE TABLE acx_import_ledger (
 *   source TEXT NOT NULL, file TEXT NOT NULL, size BIGINT NOT NULL, mtime_ms DOUBLE PRECISION NOT NULL,
 *   "offset" BIGINT NOT NULL, fingerprint TEXT NOT NULL, db_user TEXT NOT NULL DEFAULT current_user,
 *   PRIMARY KEY (db_user, source, file)
 * );
 * -- migration 6: a trigger on acx_clock pg_notify()s channel acx_clock_<schema> (payload: the
 * -- schema) whenever the clock moves: StoreCatalog.changes listens (internal/pgNotify.ts)
 * -- derived data (migration 4; see StoreCatalog and internal/pgDerived.ts): per session
 * -- acx_session_meta, per API message acx_session_usage, the search index acx_session_text
 * -- (tsvector + GIN), and on acx_session_keys the watermark derived_id / derived_mtime
 * -- migration 8: each session's owner (the login role that stored its first rows), and the
 * -- functions every writer changes the clock and claims sessions through (SECURITY DEFINER: on a
 * -- hub, members hold no UPDATE on the clock; see internal/pgMigrations.ts createWriteFunctions)
 * CREATE TABLE acx_session_owner (
 *   project_key TEXT NOT NULL, session_id TEXT NOT NULL, db_user TEXT NULL, PRIMARY KEY (project_key, session_id)
 * );
 * -- acx_clock_tick() RETURNS bigint, acx_clock_lock(), acx_claim_session(project_key, session_id) RETURNS text
 * ```
 *
 * Concurrency: every `append` is one transaction that starts with `SELECT acx_clock_tick()`
 * (`UPDATE acx_clock SET last = GREATEST(<db now ms>, last + 1) RETURNING last`). The row lock is
 * held until commit, so appends are serialised across every process sharing the database: the
 * clock is strictly increasing store-wide, entry ids are allocated in commit order, and the
 * summary read-fold-write never races. The price is one writer at a time per store (schema),
 * which the SDK's batched mirroring (one append per ~100 ms per session) comfortably affords.
 *
 * Lossless: entries and summaries are `JSON` (the text as written, validated), not `JSONB`,
 * which cannot hold U+0000 (binary bytes in a tool's output) nor unpaired UTF-16 surrogates and
 * used to fail a whole mirror batch over one such entry. `JSON` also costs less on append (no
 * binary conversion; measured in docs/benchmarks.md) and reads back the same (`->`, `->>` work
 * on both). Migration 2 (`2_lossless_json`) converts a database created with `JSONB` in place.
 *
 * Corrupt rows: a row whose JSON is not an object with a string `type` (written by something
 * else) is skipped by `load` and reported (see `CorruptEntry`), not fatal.
 *
 * Options are checked when the store is constructed (`schema` must be a plain lower-case
 * identifier), before any connection: an invalid one fails with reason `InvalidOption`. A server
 * that cannot be reached fails with reason `Connection`, naming host, port and why (never the
 * password).
 *
 * @since 0.1.0
 */
import * as DriverImport from "@acx/environment/DriverImport"
import * as PostgresSpec from "@acx/environment/PostgresSpec"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as CorruptEntry from "./CorruptEntry.js"
import type * as ImportLedger from "./ImportLedger.js"
import {
  keyAttributes,
  makeAppend,
  makeImportLedger,
  type SummaryRow,
  tablesOf,
  type WriteContext
} from "./internal/pgAppend.js"
import {
  connectionLost,
  describeConnectionLoss,
  describeStatementFailure,
  failDeadSqlError,
  isPermissionDenied,
  serverOf
} from "./internal/pgConnect.js"
import { deleteDerived, deleteVictims, makeCatalog, resetSession } from "./internal/pgDerived.js"
import { migrate } from "./internal/pgMigrations.js"
import { type ClientConstructor, clockChanges } from "./internal/pgNotify.js"
import { makeOrigins } from "./internal/pgOrigins.js"
import { openPool } from "./internal/pgPool.js"
import { driverUrl } from "./internal/pgUrl.js"
import * as SessionStore from "./SessionStore.js"
import type * as StoreCatalog from "./StoreCatalog.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface PostgresSessionStoreOptions {
  /** Connection URL, e.g. `postgres://user:pass@host:5432/db`. */
  readonly url: Redacted.Redacted
  /**
   * Postgres schema holding the tables (created when missing). Lower-case letters, digits and
   * `_`, starting with a letter or `_`. Default `public`.
   */
  readonly schema?: string | undefined
  /** Pool size. Default: the pg default (10). */
  readonly maxConnections?: number | undefined
  /** Told about every stored row `load` skips as corrupt (see `CorruptEntry`). */
  readonly onCorruptEntry?: CorruptEntry.OnCorruptEntry | undefined
  /**
   * How long opening the store may wait for the server's first answer. Default 30 s: twenty
   * machines connecting at once to a busy server (SCRAM costs CPU on both sides) took longer
   * than the driver's 5 s, and a refused or unresolvable server fails at once anyway.
   *
   * @since 0.3.0
   */
  readonly connectTimeout?: Duration.DurationInput | undefined
}

/**
 * The options of {@link makeWithClient}: the store on an application's own `SqlClient`.
 *
 * @since 0.1.0
 * @category models
 */
export interface PostgresSessionStoreClientOptions {
  /** See {@link PostgresSessionStoreOptions.schema}. */
  readonly schema?: string | undefined
  /** See {@link PostgresSessionStoreOptions.onCorruptEntry}. */
  readonly onCorruptEntry?: CorruptEntry.OnCorruptEntry | undefined
  /**
   * The server as errors name it (`HOST:PORT`, never credentials) when a connection is lost in
   * the middle of an operation; `make` sets it from the URL.
   *
   * @since 0.3.0
   */
  readonly server?: string | undefined
}

/**
 * A failed statement as the store's error: reason `Connection` with one line naming the server
 * when the connection was lost (a restart, a crash, a network cut: run the operation again);
 * `ReadOnly` for a role without the privilege (a hub's viewer, a sync member touching another's
 * rows: a reader then reads what is derived, see pgDerived.makeCatalog, as from a read-only file);
 * else `Storage` with the server's reason.
 */
const storageErrorAt = (server: string | undefined) => (operation: string) => (cause: unknown) => {
  const lost = connectionLost(cause)
  return new SessionStore.SessionStoreError({
    reason: lost !== undefined ? "Connection" : isPermissionDenied(cause) ? "ReadOnly" : "Storage",
    operation,
    description: lost === undefined ? describeStatementFailure(cause) : describeConnectionLoss(server, lost),
    cause
  })
}

const invalidOption = (description: string) =>
  new SessionStore.SessionStoreError({ reason: "InvalidOption", operation: "make", description })

/**
 * Checks the options without any I/O: `schema` a plain lower-case identifier of at most 63
 * characters (it is spliced into SQL as a name), `maxConnections` a positive integer. The Promise
 * constructor throws what this returns; the Effect constructors fail with it before connecting.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateOptions = (
  options: { readonly schema?: unknown; readonly maxConnections?: unknown }
): Either.Either<string, SessionStore.SessionStoreError> => {
  const schema = options.schema ?? PostgresSpec.DEFAULT_SCHEMA
  if (typeof schema !== "string" || !PostgresSpec.isSchemaName(schema)) {
    return Either.left(invalidOption(
      `invalid Postgres schema name ${
        JSON.stringify(schema)
      }: use 1 to 63 lower-case letters, digits and _, starting with a letter or _`
    ))
  }
  const max = options.maxConnections
  if (max !== undefined && (typeof max !== "number" || !Number.isInteger(max) || max < 1)) {
    return Either.left(invalidOption(`maxConnections must be a positive integer, got ${String(max)}`))
  }
  return Either.right(schema)
}

interface EntryRow {
  readonly id: string
  readonly entry: string
}

/** The store's functions: the write path's context, its tables, and what `load` reports corrupt rows to. */
interface StoreContext extends WriteContext, ReturnType<typeof tablesOf> {
  readonly onCorruptEntry: CorruptEntry.OnCorruptEntry | undefined
}

/** Runs the migrations in `schema`; a role that may not migrate is told who can. */
const migrateSchema = (schema: string, storageError: ReturnType<typeof storageErrorAt>) =>
  migrate(schema).pipe(
    failDeadSqlError,
    Effect.mapError((cause) => {
      const error = storageError("migrate")(cause)
      // a hub's member meets a schema an older acx set up: only its admin can bring it up to date
      return error.reason === "ReadOnly"
        ? new SessionStore.SessionStoreError({
          ...error,
          description:
            `${error.description} (the store's schema is older than this acx, and this role may not migrate it: an admin runs \`acx hub init\` again)`
        })
        : error
    }),
    Effect.withSpan("PostgresSessionStore.migrate", { attributes: { schema } })
  )

const loadKey = ({ entries, onCorruptEntry, run, sql }: StoreContext): SessionStore.SessionStore["load"] => (rawKey) =>
  Effect.gen(function*() {
    const key = yield* SessionStore.validateKey("load", rawKey)
    const rows = yield* run(
      "load",
      keyAttributes(key),
      // The text itself (`::text` is free on JSON): each row is decoded on its own, so one
      // corrupt row is skipped and reported instead of failing the load.
      sql<EntryRow>`SELECT id, entry::text AS entry FROM ${entries}
        WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId}
          AND subpath = ${key.subpath ?? ""}
        ORDER BY id`
    )
    return rows.length === 0 ? null : yield* CorruptEntry.decodeRows(key, rows, onCorruptEntry)
  })

const listSessionsOf = ({ keys, run, sql }: StoreContext): SessionStore.SessionStore["listSessions"] => (projectKey) =>
  run(
    "listSessions",
    { projectKey },
    sql<{ readonly session_id: string; readonly mtime: string | number }>`SELECT session_id, mtime
      FROM ${keys} WHERE project_key = ${projectKey} AND subpath = '' ORDER BY mtime DESC`
  ).pipe(Effect.map((rows) => rows.map((row) => ({ sessionId: row.session_id, mtime: Number(row.mtime) }))))

const listSummariesOf =
  ({ run, sql, summaries }: StoreContext): SessionStore.SessionStore["listSessionSummaries"] => (projectKey) =>
    run(
      "listSessionSummaries",
      { projectKey },
      sql<SummaryRow>`SELECT session_id, mtime, data FROM ${summaries}
        WHERE project_key = ${projectKey} ORDER BY mtime DESC`
    ).pipe(
      Effect.map((rows) => rows.map((row) => ({ sessionId: row.session_id, mtime: Number(row.mtime), data: row.data })))
    )

const deleteKey = (context: StoreContext): SessionStore.SessionStore["delete"] => (rawKey) =>
  Effect.gen(function*() {
    const { clockTick, entries, keys, run, schema, sql, summaries } = context
    const key = yield* SessionStore.validateKey("delete", rawKey)
    const same = sql`project_key = ${key.projectKey} AND session_id = ${key.sessionId}`
    const scope = SessionStore.isMainKey(key) ? same : sql`${same} AND subpath = ${key.subpath!}`
    yield* run(
      "delete",
      keyAttributes(key),
      sql.withTransaction(Effect.gen(function*() {
        // the clock row's lock first, as every append takes it: no append derives in between;
        // and the clock moves, so a reader that follows the store (the web page) sees the delete
        yield* sql`SELECT ${clockTick}()`
        yield* SessionStore.isMainKey(key)
          ? deleteDerived(sql, schema, key.projectKey, key.sessionId)
          : deleteDerived(sql, schema, key.projectKey, key.sessionId, key.subpath!)
        yield* sql`DELETE FROM ${entries} WHERE ${scope}`
        yield* sql`DELETE FROM ${keys} WHERE ${scope}`
        if (SessionStore.isMainKey(key)) yield* sql`DELETE FROM ${summaries} WHERE ${same}`
        // the session's counts lose what the subagent added: derived again from what is left
        else yield* resetSession(sql, schema, key.projectKey, key.sessionId)
      }))
    )
  })

const listSubkeysOf = ({ keys, run, sql }: StoreContext): SessionStore.SessionStore["listSubkeys"] => (rawKey) =>
  Effect.gen(function*() {
    const key = yield* SessionStore.validateKey("listSubkeys", rawKey)
    const rows = yield* run(
      "listSubkeys",
      keyAttributes(key),
      sql<{ readonly subpath: string }>`SELECT subpath FROM ${keys}
        WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId} AND subpath <> ''
        ORDER BY subpath`
    )
    return rows.map((row) => row.subpath)
  })

const deleteOlderThanIn =
  ({ entries, keys, run, schema, sql, summaries }: StoreContext): SessionStore.SessionStore["deleteOlderThan"] =>
  (cutoff, options) => {
    const projectKey = options?.projectKey
    const inProject = projectKey === undefined ? sql`TRUE` : sql`project_key = ${projectKey}`
    // A session's age is the newest mtime over its main transcript and its subkeys.
    const victims = sql`SELECT project_key, session_id FROM ${keys} WHERE ${inProject}
      GROUP BY project_key, session_id HAVING max(mtime) < ${Math.floor(cutoff)}`
    const matches = sql`(project_key, session_id) IN (SELECT project_key, session_id FROM victims)`
    return run(
      "deleteOlderThan",
      { cutoff, projectKey: projectKey ?? "*" },
      sql<{ readonly deleted: string | number }>`WITH victims AS (${victims}),
        ${deleteVictims(sql, schema)}
        gone_entries AS (DELETE FROM ${entries} WHERE ${matches}),
        gone_summaries AS (DELETE FROM ${summaries} WHERE ${matches}),
        gone_keys AS (DELETE FROM ${keys} WHERE ${matches} RETURNING project_key, session_id)
        SELECT count(*) AS deleted FROM (SELECT DISTINCT project_key, session_id FROM gone_keys) AS d`
    ).pipe(Effect.map(([row]) => Number(row?.deleted ?? 0)))
  }

/**
 * Builds the store on the Postgres `SqlClient` in context (e.g. an application's own
 * `PgClient.layer`, which provides it) and runs the migrations in `schema` (default `public`).
 * Use it to share one pool with the rest of an application.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeWithClient = (
  options: PostgresSessionStoreClientOptions = {}
): Effect.Effect<
  ImportLedger.SessionStoreWithLedger & StoreCatalog.WithCatalog,
  SessionStore.SessionStoreError,
  SqlClient.SqlClient
> =>
  Effect.gen(function*() {
    const schema = yield* validateOptions(options)
    const sql = yield* SqlClient.SqlClient
    const storageError = storageErrorAt(options.server)
    yield* migrateSchema(schema, storageError)
    const context: StoreContext = {
      sql,
      schema,
      run: (operation, attributes, effect) =>
        effect.pipe(
          failDeadSqlError,
          Effect.mapError((error) => error._tag === "SqlError" ? storageError(operation)(error) : error),
          Effect.withSpan(`PostgresSessionStore.${operation}`, { attributes: { schema, ...attributes } })
        ),
      ...tablesOf(sql, schema),
      onCorruptEntry: options.onCorruptEntry
    }
    const append = makeAppend(context)
    const { appendImported, importedFiles } = makeImportLedger(context)
    // every writer takes the clock row's lock first (see the module doc)
    const clockLock = sql(`${schema}.acx_clock_lock`)
    const writeTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      failDeadSqlError(sql.withTransaction(Effect.zipRight(sql`SELECT ${clockLock}()`, effect)))
    const store: ImportLedger.SessionStoreWithLedger & StoreCatalog.WithCatalog = {
      append,
      load: loadKey(context),
      listSessions: listSessionsOf(context),
      listSessionSummaries: listSummariesOf(context),
      delete: deleteKey(context),
      listSubkeys: listSubkeysOf(context),
      deleteOlderThan: deleteOlderThanIn(context),
      importedFiles,
      appendImported,
      ...makeOrigins(sql, schema, writeTransaction, storageError),
      catalog: makeCatalog(sql, schema, writeTransaction, storageError)
    }
    return store
  })

/**
 * Opens a connection pool (closed with the scope), runs the migrations and builds the store.
 * The driver, `@effect/sql-pg`, is an optional peer loaded here: without it this fails with
 * `MissingDriver`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: PostgresSessionStoreOptions
): Effect.Effect<
  ImportLedger.SessionStoreWithLedger & StoreCatalog.WithCatalog,
  SessionStore.SessionStoreError,
  Scope.Scope
> =>
  Effect.gen(function*() {
    yield* validateOptions(options)
    const client = yield* openPool({
      url: options.url,
      maxConnections: options.maxConnections,
      applicationName: "@acx/session-store/PostgresSessionStore",
      connectTimeout: options.connectTimeout ?? Duration.seconds(30)
    })
    const store = yield* makeWithClient({
      schema: options.schema,
      onCorruptEntry: options.onCorruptEntry,
      server: serverOf(Redacted.value(options.url))
    }).pipe(
      Effect.provideService(SqlClient.SqlClient, client)
    )
    // the clock's notifications, on a connection of the listener's own (the driver is loaded)
    const changes = clockChanges(
      // the part of pg.Client it uses (its `on` overloads are wider than one listener each)
      () => DriverImport.load(() => import("pg")).then((pg) => pg.default.Client as unknown as ClientConstructor),
      driverUrl(Redacted.value(options.url)),
      options.schema ?? "public"
    )
    return Object.assign(store, { catalog: { ...store.catalog, changes } })
  })

/**
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: PostgresSessionStoreOptions
): Layer.Layer<SessionStore.SessionStore, SessionStore.SessionStoreError> =>
  Layer.scoped(SessionStore.SessionStore, make(options))

/**
 * The store on an existing Postgres `SqlClient` (see {@link makeWithClient}).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWithClient = (
  options: PostgresSessionStoreClientOptions = {}
): Layer.Layer<SessionStore.SessionStore, SessionStore.SessionStoreError, SqlClient.SqlClient> =>
  Layer.effect(SessionStore.SessionStore, makeWithClient(options))

/**
 * Like {@link layer}, with every option read from `Config`; `url` defaults to
 * `Config.redacted("ACX_PG_URL")`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  config: Partial<Config.Config.Wrap<PostgresSessionStoreOptions>> = {}
): Layer.Layer<SessionStore.SessionStore, SessionStore.SessionStoreError | ConfigError.ConfigError> =>
  Layer.unwrapEffect(
    Config.unwrap<PostgresSessionStoreOptions>({
      url: Config.redacted("ACX_PG_URL"),
      ...config
    } as Config.Config.Wrap<PostgresSessionStoreOptions>).pipe(Effect.map(layer))
  )

/**
 * The store as the SDK's `SessionStore` (every optional method, plus `deleteOlderThan` and
 * `close()`), for `query({ options: { sessionStore } })` and the SDK's session functions.
 * Invalid options throw the {@link SessionStore.SessionStoreError} (reason `InvalidOption`) right
 * here; the connection opens on first use.
 *
 * @example
 * ```ts
 * import { createPostgresSessionStore } from "@acx/session-store/PostgresSessionStore"
 * import * as Redacted from "effect/Redacted"
 *
 * const sessionStore = createPostgresSessionStore({ url: Redacted.make(process.env.ACX_PG_URL!) })
 * // query({ prompt, options: { sessionStore } }) … then:
 * await sessionStore.close()
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const createPostgresSessionStore = (
  options: {
    readonly url: Redacted.Redacted | string
    readonly schema?: string | undefined
    readonly maxConnections?: number | undefined
    readonly onCorruptEntry?: CorruptEntry.OnCorruptEntry | undefined
  }
): SessionStore.SdkSessionStore => {
  const checked = validateOptions(options)
  if (Either.isLeft(checked)) throw checked.left
  return SessionStore.toSdk(layer({
    ...options,
    url: typeof options.url === "string" ? Redacted.make(options.url) : options.url
  }))
}
