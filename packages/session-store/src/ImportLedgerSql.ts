/**
 * The SQLite store's reads of its import ledger and session origins as plain SQL text, without
 * Effect: `SqliteSessionStore` runs {@link IMPORTED_FILES} through `@effect/sql` for
 * `ImportLedger.importedFiles`, and a reader that must start without Effect (the first step of
 * `acx sync`, which finds a directory unchanged) runs the same statements with a bare driver,
 * so both see the same records.
 *
 * @since 0.4.0
 */

/**
 * A source's ledger records (`ImportLedger.ImportedFile`'s columns); one parameter, the source.
 *
 * @since 0.4.0
 * @category statements
 */
export const IMPORTED_FILES = `SELECT file, size, mtime_ms AS "mtimeMs", "offset", fingerprint
  FROM acx_session_import_ledger WHERE source = ?`

/**
 * The sessions whose origin is recorded (`SessionOrigins`), every project's.
 *
 * @since 0.4.0
 * @category statements
 */
export const ORIGIN_KEYS = `SELECT project_key, session_id FROM acx_session_origin`

/**
 * Every recorded origin of a SQLite store, for a reader without Effect (the CLI's fast read path
 * of `acx sessions`): a {@link OriginRow} each.
 *
 * @since 0.5.0
 * @category statements
 */
export const ORIGINS = `SELECT project_key, session_id, machine, project FROM acx_session_origin`

/**
 * A row of {@link ORIGINS}.
 *
 * @since 0.5.0
 * @category models
 */
export interface OriginRow {
  readonly project_key: string
  readonly session_id: string
  readonly machine: string
  readonly project: string
}

/**
 * A row of {@link IMPORTED_FILES}.
 *
 * @since 0.4.0
 * @category rows
 */
export interface LedgerRow {
  readonly file: string
  readonly size: number
  readonly mtimeMs: number
  readonly offset: number
  readonly fingerprint: string
}
