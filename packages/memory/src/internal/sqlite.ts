/**
 * The memory database opened with better-sqlite3 directly, for the hook path (synchronous, no
 * Effect loaded): WAL, a busy timeout, and the shared migrations applied in one immediate
 * transaction (so eight hooks racing on a fresh file migrate it once).
 */
import * as AcxHome from "@acx/environment/AcxHome"
import Database from "better-sqlite3"
import { createRequire } from "node:module"
import { migrations, MIGRATIONS_TABLE, migrationsTableSql } from "./migrations.js"

/** How long a statement waits for another writer's lock before failing (ms). */
export const BUSY_TIMEOUT_MS = 5_000

/** The pragmas every connection sets. */
export const configure = (db: Database.Database, busyTimeoutMs: number = BUSY_TIMEOUT_MS): void => {
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = NORMAL")
  db.pragma("foreign_keys = ON")
}

const latestApplied = (db: Database.Database): number => {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(MIGRATIONS_TABLE)
  if (exists === undefined) return 0
  const row = db.prepare(`SELECT max(migration_id) AS id FROM ${MIGRATIONS_TABLE}`).get() as { id: number | null }
  return row.id ?? 0
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
 * The path of better-sqlite3's native addon, resolved once: its default lookup (the `bindings`
 * package) walks the directory tree from a stack trace, the largest single cost of a hook after
 * Node's own start-up. `undefined`: another build layout, left to the default lookup.
 */
let nativeBinding: string | null | undefined = null
const addonPath = (): string | undefined => {
  if (nativeBinding !== null) return nativeBinding
  try {
    nativeBinding = createRequire(import.meta.url).resolve("better-sqlite3/build/Release/better_sqlite3.node")
  } catch {
    nativeBinding = undefined
  }
  return nativeBinding
}

/**
 * Opens (creating its directory and file owner-only: SQLite gives the -wal and -shm the file's
 * mode) and migrates the memory database.
 */
export const open = (file: string, options?: { readonly busyTimeoutMs?: number | undefined }): Database.Database => {
  AcxHome.preparePrivateFile(file)
  const addon = addonPath()
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
