/**
 * @since 0.1.0
 */

/**
 * The SDK's SessionStore contract as an Effect service, and its Promise (SDK) form.
 *
 * @since 0.1.0
 */
export * as SessionStore from "./SessionStore.js"

/**
 * An in-memory SessionStore (uuid-idempotent): tests and single processes.
 *
 * @since 0.1.0
 */
export * as MemorySessionStore from "./MemorySessionStore.js"

/**
 * The embedded SQLite SessionStore (the default).
 *
 * @since 0.1.0
 */
export * as SqliteSessionStore from "./SqliteSessionStore.js"

/**
 * The Postgres SessionStore: many machines, one database.
 *
 * @since 0.1.0
 */
export * as PostgresSessionStore from "./PostgresSessionStore.js"

/**
 * What an import took of each source file, kept in the SQLite and Postgres stores.
 *
 * @since 0.1.0
 */
export * as ImportLedger from "./ImportLedger.js"

/**
 * Stored rows that are not entries: skipped by `load` and reported.
 *
 * @since 0.1.0
 */
export * as CorruptEntry from "./CorruptEntry.js"

/**
 * The derived data of the SQL stores: sessions, per-message usage, full-text search.
 *
 * @since 0.2.0
 */
export * as StoreCatalog from "./StoreCatalog.js"

/**
 * The SQLite catalog's reads as plain data (SQL text, the meta row mapping), without Effect.
 *
 * @since 0.3.0
 */
export * as StoreCatalogSql from "./StoreCatalogSql.js"

/**
 * The SQLite store's reads of its import ledger and origins as SQL text, without Effect.
 *
 * @since 0.4.0
 */
export * as ImportLedgerSql from "./ImportLedgerSql.js"

/**
 * The names an origin is kept under (machine names, ledger sources), without Effect.
 *
 * @since 0.4.0
 */
export * as OriginNames from "./OriginNames.js"

/**
 * The query language of `StoreCatalog.search` and its translation to FTS5 and `tsquery`.
 *
 * @since 0.2.0
 */
export * as SearchQuery from "./SearchQuery.js"

/**
 * What a store derives from entries (pure).
 *
 * @since 0.2.0
 */
export * as SessionDerive from "./SessionDerive.js"

/**
 * Where each session of a store came from: machine, OS user, project across machines; the
 * ledger keyed by machine and path.
 *
 * @since 0.3.0
 */
export * as SessionOrigins from "./SessionOrigins.js"

/**
 * Searching a store's conversations as they are shown: masked hits, one result shape.
 *
 * @since 0.3.0
 */
export * as SessionSearch from "./SessionSearch.js"

export {
  /**
   * The Promise constructors, also at `@acx/session-store/promise`.
   *
   * @since 0.1.0
   */
  createMemorySessionStore,
  createPostgresSessionStore,
  createSqliteSessionStore
} from "./promise.js"
