/**
 * The memory database opened with better-sqlite3 directly, for the hook path (synchronous, no
 * Effect loaded): WAL, a busy timeout, and the memory's ONE migration runner ({@link migrate}),
 * which `MemoryDatabase`'s layers run too before their `@effect/sql` client opens: the missing
 * migrations applied in one immediate transaction that checks again under the write lock, so
 * hooks, workers and pages racing on a fresh file apply each migration once.
 */
import * as AcxHome from "@acx/environment/AcxHome"
import * as SqliteAddon from "@acx/environment/SqliteAddon"
import Database from "better-sqlite3"
import { migrations, MIGRATIONS_TABLE, migrationsTableSql } from "./migrations.js"

/** How long a statement waits for another writer's lock before failing (ms). */
export const BUSY_TIMEOUT_MS = 5_000

/** Whether SQLite refused for another connection's lock (`SQLITE_BUSY…`, `SQLITE_LOCKED…`). */
export const isBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))
}

/** Blocks the thread for `ms` (the hook is synchronous; only a contended fresh file waits). */
const pause = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

/**
 * Switches a file to WAL. A fresh file's switch takes an exclusive lock, and when two
 * connections switch at once SQLite answers `SQLITE_BUSY` at once instead of waiting (waiting
 * could deadlock), so the switch is retried until the busy timeout; a file already in WAL only
 * reads its header.
 */
const useWal = (db: Database.Database, busyTimeoutMs: number): void => {
  const deadline = Date.now() + busyTimeoutMs
  for (let attempt = 1;; attempt++) {
    try {
      db.pragma("journal_mode = WAL")
      return
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error
      pause(Math.min(50, attempt))
    }
  }
}

/** The pragmas every connection sets. */
export const configure = (db: Database.Database, busyTimeoutMs: number = BUSY_TIMEOUT_MS): void => {
  const timeout = Math.max(0, Math.floor(busyTimeoutMs))
  db.pragma(`busy_timeout = ${timeout}`)
  useWal(db, timeout)
  db.pragma("synchronous = NORMAL")
  db.pragma("foreign_keys = ON")
}

/**
 * The newest migration applied: ONE read (the hook runs this on every tool call); a file without
 * the bookkeeping table (fresh) has none, which SQLite says by failing to prepare the read.
 */
const latestApplied = (db: Database.Database): number => {
  let read: Database.Statement
  try {
    read = db.prepare(`SELECT max(migration_id) AS id FROM ${MIGRATIONS_TABLE}`)
  } catch (error) {
    if (error instanceof Error && /no such table/i.test(error.message)) return 0
    throw error
  }
  return (read.get() as { id: number | null }).id ?? 0
}

/** The newest migration's id. */
export const LATEST_MIGRATION = migrations.at(-1)!.id

/** Applies the migrations this file lacks; a no-op (one read) when it is current. */
export const migrate = (db: Database.Database): void => {
  if (latestApplied(db) >= LATEST_MIGRATION) return
  db.exec("BEGIN IMMEDIATE")
  try {
    db.exec(migrationsTableSql)
    const applied = latestApplied(db)
    const insert = db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (migration_id, name) VALUES (?, ?)`)
    for (const migration of migrations) {
      if (migration.id <= applied) continue
      for (const statement of migration.statements) db.exec(statement)
      insert.run(migration.id, migration.name)
    }
    db.exec("COMMIT")
  } catch (error) {
    if (db.inTransaction) db.exec("ROLLBACK")
    throw error
  }
}

/**
 * Opens (creating its directory and file owner-only: SQLite gives the -wal and -shm the file's
 * mode) and migrates the memory database.
 */
export const open = (file: string, options?: { readonly busyTimeoutMs?: number | undefined }): Database.Database => {
  AcxHome.preparePrivateFile(file)
  const addon = SqliteAddon.addonPath()
  const db = new Database(file, addon === undefined ? {} : { nativeBinding: addon })
  try {
    configure(db, options?.busyTimeoutMs)
    migrate(db)
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

/** Runs `body` in an immediate (write-locking) transaction. */
export const immediate = <A>(db: Database.Database, body: () => A): A => db.transaction(body).immediate()
