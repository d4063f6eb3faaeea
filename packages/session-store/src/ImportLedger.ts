/**
 * What an import has already taken from each source file, kept in the target store itself and
 * advanced in the same transaction as the entries it stands for. The SQLite and Postgres adapters
 * implement it (their stores carry these two methods besides the `SessionStore` ones); an
 * importer that finds it reads only what was appended since, and two importers of the same source
 * running at the same time store every line once: each batch moves the file's record from the
 * state its importer read to the next one by compare-and-set, and a batch whose record moved
 * meanwhile stores nothing (`appendImported` answers `false`), so that importer reads the record
 * again and carries on from where the other stopped.
 *
 * A record is per `(source, file)`: `source` names the tree imported (an absolute directory),
 * `file` a path inside it. `offset` is how many bytes of the file were taken (always the end of
 * a complete line); `fingerprint` identifies the bytes up to `offset` cheaply (the importer's
 * choice, e.g. hashes of the first and last KiB before `offset`), so a file rewritten in place
 * is told from one that grew; `size` and `mtimeMs` are the file's when it was read, so an
 * unchanged file is skipped without opening it.
 *
 * On Postgres each writer (login role) keeps records of its own: a record is per `(db_user,
 * source, file)`, and a writer reads and moves only its own. Another role's record of the same
 * source and file (a hub member's, planted or not) is no record of this writer's: it neither
 * stops nor skips its import.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as SessionStore from "./SessionStore.js"

/**
 * One file's record.
 *
 * @since 0.1.0
 * @category models
 */
export interface ImportedFile {
  /** The path inside the source. */
  readonly file: string
  /**
   * The file's size in bytes when it was read to its end; a record written mid-file (a batch of
   * a longer read) holds `offset` here, so it never passes for a finished file.
   */
  readonly size: number
  /** The file's modification time (epoch ms, fractions kept) when it was read. */
  readonly mtimeMs: number
  /** Bytes taken: the end of the last complete line imported. */
  readonly offset: number
  /** Identifies the bytes before `offset` (opaque to the store). */
  readonly fingerprint: string
}

/**
 * A move of one file's record: from `expected` (`null`: no record yet) to `next`.
 *
 * @since 0.1.0
 * @category models
 */
export interface LedgerAdvance {
  readonly source: string
  readonly expected: ImportedFile | null
  readonly next: ImportedFile
}

/**
 * The ledger methods of a store.
 *
 * @since 0.1.0
 * @category models
 */
export interface ImportLedger {
  /** Every record of `source`. */
  readonly importedFiles: (
    source: string
  ) => Effect.Effect<ReadonlyArray<ImportedFile>, SessionStore.SessionStoreError>
  /**
   * In one transaction: when the record of `advance.next.file` is still `advance.expected`
   * (same `offset` and `fingerprint`, or absent for `null`), appends `entries` under `key` (as
   * `append` does: uuids stay idempotency keys) and writes `advance.next`; answers `true`.
   * Otherwise stores nothing and answers `false`.
   */
  readonly appendImported: (
    key: SessionStore.SessionKey,
    entries: ReadonlyArray<SessionStore.SessionStoreEntry>,
    advance: LedgerAdvance
  ) => Effect.Effect<boolean, SessionStore.SessionStoreError>
}

/**
 * A store that keeps an import ledger.
 *
 * @since 0.1.0
 * @category models
 */
export type SessionStoreWithLedger = SessionStore.SessionStore & ImportLedger

/**
 * The store's ledger, when it keeps one.
 *
 * @since 0.1.0
 * @category accessors
 */
export const ledgerOf = (store: SessionStore.SessionStore): ImportLedger | undefined => {
  const candidate = store as Partial<ImportLedger>
  return typeof candidate.importedFiles === "function" && typeof candidate.appendImported === "function"
    ? { importedFiles: candidate.importedFiles, appendImported: candidate.appendImported }
    : undefined
}

/**
 * Whether a stored record is the one an advance expects.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isExpected = (
  stored: { readonly offset: number; readonly fingerprint: string } | undefined,
  expected: ImportedFile | null
): boolean =>
  expected === null
    ? stored === undefined
    : stored !== undefined && stored.offset === expected.offset && stored.fingerprint === expected.fingerprint
