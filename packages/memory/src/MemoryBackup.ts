/**
 * Backups of the memory database: a daily copy under `$ACX_HOME/backups`, an integrity check
 * that says how to recover, and a restore that never loses the database it replaces.
 *
 * Copies are taken with SQLite's online backup API, so hooks and the worker may keep writing
 * while one is taken: the copy is one consistent snapshot. Every file appears under its final
 * name only once complete (written to a hidden temporary name in the same directory, then
 * renamed), so a crash never leaves a half backup that looks whole.
 *
 * @since 0.1.0
 */
import * as AcxHome from "@acx/environment/AcxHome"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as path from "node:path"
import { liveWorkerPid } from "./internal/hookStore.js"
import { open } from "./internal/sqlite.js"
import { defaults, type MemoryPaths } from "./MemoryConfig.js"
import { MemoryError } from "./MemoryError.js"

/**
 * A backup file.
 *
 * @since 0.1.0
 * @category models
 */
export interface BackupInfo {
  readonly path: string
  /** Bytes. */
  readonly size: number
  /** When it was taken (the UTC stamp in its name, to the second). */
  readonly createdAt: Date
}

/**
 * A restore: the database replaced, the file it was restored from, and where the database it
 * replaced was kept (`undefined` when there was none).
 *
 * @since 0.1.0
 * @category models
 */
export interface RestoreInfo {
  readonly database: string
  readonly restored: string
  readonly previous: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface BackupOptions {
  /** How many `memory-*.db` backups to keep, newest first (default `backupsKept`'s default, 7). */
  readonly keep?: number | undefined
  /** The backup's time (default the current time). */
  readonly now?: Date | undefined
}

/**
 * How old the newest backup may get before another is due.
 *
 * @since 0.1.0
 * @category constants
 */
export const BACKUP_INTERVAL_MS = 24 * 60 * 60 * 1000

const BACKUP_NAME = /^memory-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z\.db$/

// better-sqlite3's largest step: every remaining page in one step, that is in one read
// transaction. A copy taken in smaller steps restarts whenever another connection writes
// between two steps, and might never finish while hooks keep writing.
const ALL_PAGES = 0x7fffffff

const stampOf = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, "Z").replace(/[-:]/g, "")

const backupPath = (paths: MemoryPaths, now: Date): string => path.join(paths.backups, `memory-${stampOf(now)}.db`)

const messageOf = (error: unknown): string => error instanceof Error ? error.message : String(error)

const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

// SQLite's own verdict that the bytes are not a sound database, as opposed to a lock, a
// permission or a full disk, which say nothing about the file's contents.
const isCorruption = (error: unknown): boolean => {
  const code = codeOf(error)
  return code === "SQLITE_NOTADB" || code?.startsWith("SQLITE_CORRUPT") === true
}

const fail = (reason: MemoryError["reason"], description: string, cause?: unknown): MemoryError =>
  cause === undefined
    ? new MemoryError({ reason, description })
    : new MemoryError({ reason, description, cause })

const databaseError = (what: string) => (cause: unknown): MemoryError =>
  fail("Database", `${what}: ${messageOf(cause)}`, cause)

const exists = (file: string): boolean => fs.existsSync(file)

const removeQuietly = (file: string): void => fs.rmSync(file, { force: true })

const removeWithSidecars = (file: string): void => {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) removeQuietly(file + suffix)
}

// A rename is durable only once its directory is synced; best effort, as some file systems
// refuse to open a directory.
const syncDirectory = (dir: string): void => {
  try {
    const fd = fs.openSync(dir, "r")
    try {
      fs.fsyncSync(fd)
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    // the rename itself has happened; only its durability across a power cut is unconfirmed
  }
}

// Hidden and ending in `.tmp`, so it never matches a backup's name while it is being written.
const tempNameFor = (target: string): string =>
  path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}-${Math.random().toString(36).slice(2, 10)}.tmp`
  )

const openReadonly = (file: string): Database.Database => new Database(file, { readonly: true, fileMustExist: true })

const closeQuietly = (db: Database.Database): void => {
  try {
    db.close()
  } catch {
    // closing a connection we only read through loses nothing
  }
}

const withReadonly = <A>(file: string, body: (db: Database.Database) => A): A => {
  const db = openReadonly(file)
  try {
    return body(db)
  } finally {
    closeQuietly(db)
  }
}

// The copy keeps its source's WAL flag; switched to a rollback journal it is one self-contained
// file that read-only opens leave alone (a WAL file would grow -wal and -shm companions).
const makeSingleFile = (file: string): void => {
  const db = new Database(file, { fileMustExist: true })
  try {
    db.pragma("journal_mode = DELETE")
  } finally {
    db.close()
  }
}

const publish = (temp: string, target: string): void => {
  fs.renameSync(temp, target)
  syncDirectory(path.dirname(target))
}

/** An online backup of `source` into `target`, complete or absent. */
const snapshotTo = async (source: Database.Database, target: string): Promise<void> => {
  const temp = tempNameFor(target)
  try {
    // owner-only before SQLite writes a page into it (a backup holds everything the memory does)
    AcxHome.preparePrivateFile(temp)
    await source.backup(temp, { progress: () => ALL_PAGES })
    makeSingleFile(temp)
    publish(temp, target)
  } catch (error) {
    removeWithSidecars(temp)
    throw error
  }
}

/** A byte copy of `source` (and its WAL, which may hold committed rows) into `target`. */
const copyFileTo = (source: string, target: string): void => {
  const temp = tempNameFor(target)
  try {
    fs.copyFileSync(source, temp)
    AcxHome.tightenPrivateFile(temp)
    if (exists(`${source}-wal`)) {
      fs.copyFileSync(`${source}-wal`, `${target}-wal`)
      AcxHome.tightenPrivateFile(`${target}-wal`)
    }
    publish(temp, target)
  } catch (error) {
    removeQuietly(temp)
    throw error
  }
}

const infoOf = (file: string, match: RegExpExecArray): BackupInfo => {
  const [, year, month, day, hour, minute, second] = match.map(Number) as [number, ...Array<number>]
  return {
    path: file,
    size: fs.statSync(file).size,
    createdAt: new Date(Date.UTC(year!, month! - 1, day!, hour!, minute!, second!))
  }
}

const listSync = (paths: MemoryPaths): Array<BackupInfo> => {
  if (!exists(paths.backups)) return []
  const infos: Array<BackupInfo> = []
  for (const name of fs.readdirSync(paths.backups)) {
    const match = BACKUP_NAME.exec(name)
    const file = path.join(paths.backups, name)
    if (match !== null && fs.statSync(file).isFile()) infos.push(infoOf(file, match))
  }
  // the stamps are fixed-width UTC, so their order is the names' order
  return infos.sort((a, b) => b.path.localeCompare(a.path))
}

const validKeep = (keep: number | undefined): Effect.Effect<number, MemoryError> => {
  const value = keep ?? defaults.backupsKept
  return Number.isInteger(value) && value > 0
    ? Effect.succeed(value)
    : Effect.fail(fail("InvalidArgument", `keep must be a positive whole number, not ${value}`))
}

// The backup just taken always stays, even when a clock set back gave it an older stamp than
// the ones kept.
const prune = (paths: MemoryPaths, taken: string, keep: number): Effect.Effect<void, MemoryError> =>
  Effect.try({
    try: () => {
      const others = listSync(paths).filter((info) => info.path !== taken)
      for (const old of others.slice(keep - 1)) removeWithSidecars(old.path)
    },
    catch: databaseError(`cannot prune the backups in ${paths.backups}`)
  })

/**
 * The backups (`<backups>/memory-<stamp>.db`), newest first; none when the directory does not
 * exist. Other files in the directory are not backups and are not listed.
 *
 * @since 0.1.0
 * @category backups
 */
export const list: (paths: MemoryPaths) => Effect.Effect<ReadonlyArray<BackupInfo>, MemoryError> = Effect.fn(
  "MemoryBackup.list"
)(function*(paths: MemoryPaths) {
  return yield* Effect.try({
    try: () => listSync(paths),
    catch: databaseError(`cannot list the backups in ${paths.backups}`)
  })
})

const makeDirectory = (dir: string): Effect.Effect<void, MemoryError> =>
  Effect.try({
    try: () => void AcxHome.makePrivateDirectory(dir),
    catch: databaseError(`cannot create ${dir}`)
  })

const requireDatabase = (paths: MemoryPaths): Effect.Effect<void, MemoryError> =>
  exists(paths.database)
    ? Effect.void
    : Effect.fail(fail("NotFound", `there is no memory database at ${paths.database} to back up`))

const takeSnapshot = (source: string, target: string, what: string): Effect.Effect<void, MemoryError> =>
  Effect.acquireUseRelease(
    Effect.try({ try: () => openReadonly(source), catch: databaseError(`cannot open ${source}`) }),
    (db) => Effect.tryPromise({ try: () => snapshotTo(db, target), catch: databaseError(what) }),
    (db) => Effect.sync(() => closeQuietly(db))
  )

/**
 * Takes an online backup of the database into `<backups>/memory-<YYYYMMDDTHHMMSSZ>.db` (UTC),
 * safe while hooks and the worker write, then deletes all but the newest `keep` backups (other
 * files in the directory are left alone). Fails with `NotFound` when there is no database.
 *
 * @since 0.1.0
 * @category backups
 */
export const backup: (paths: MemoryPaths, options?: BackupOptions) => Effect.Effect<BackupInfo, MemoryError> = Effect
  .fn("MemoryBackup.backup")(function*(paths: MemoryPaths, options?: BackupOptions) {
    const keep = yield* validKeep(options?.keep)
    yield* requireDatabase(paths)
    const target = backupPath(paths, options?.now ?? new Date())
    yield* Effect.annotateCurrentSpan("target", target)
    yield* makeDirectory(paths.backups)
    yield* takeSnapshot(paths.database, target, `cannot back up ${paths.database} into ${target}`)
    yield* prune(paths, target, keep)
    return yield* Effect.try({
      try: () => infoOf(target, BACKUP_NAME.exec(path.basename(target))!),
      catch: databaseError(`cannot read ${target}`)
    })
  })

/**
 * Whether a backup is due: the database exists and the newest backup is at least
 * {@link BACKUP_INTERVAL_MS} away from `now` (or there is none). A backup "from the future"
 * that far away counts as stale too, so a clock set back does not stop the backups. A backup
 * directory that cannot be read makes one due, so that the attempt reports the problem.
 *
 * @since 0.1.0
 * @category backups
 */
export const isDue: (paths: MemoryPaths, now: Date) => Effect.Effect<boolean> = Effect.fn("MemoryBackup.isDue")(
  function*(paths: MemoryPaths, now: Date) {
    if (!exists(paths.database)) return false
    const backups = yield* list(paths).pipe(Effect.option)
    if (Option.isNone(backups)) return true
    const newest = backups.value[0]
    return newest === undefined || Math.abs(now.getTime() - newest.createdAt.getTime()) >= BACKUP_INTERVAL_MS
  }
)

/**
 * {@link backup} when {@link isDue}; the worker calls it daily. `None` when no backup was due.
 *
 * @since 0.1.0
 * @category backups
 */
export const backupIfDue: (
  paths: MemoryPaths,
  options?: BackupOptions
) => Effect.Effect<Option.Option<BackupInfo>, MemoryError> = Effect.fn("MemoryBackup.backupIfDue")(
  function*(paths: MemoryPaths, options?: BackupOptions) {
    const now = options?.now ?? new Date()
    if (!(yield* isDue(paths, now))) return Option.none()
    return Option.some(yield* backup(paths, { ...options, now }))
  }
)

/** What `quick_check` finds wrong, or `undefined` when it finds the file sound. */
const integrityProblem = (db: Database.Database): string | undefined => {
  const rows = db.pragma("quick_check", { simple: false }) as Array<{ quick_check: string }>
  const lines = rows.map((row) => row.quick_check)
  return lines.length === 1 && lines[0] === "ok" ? undefined : lines.slice(0, 5).join("; ")
}

const shellQuote = (value: string): string =>
  /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`

// The hint is part of an error already being reported, so a backup directory that cannot be
// read only changes what it suggests.
const newestBackup = (paths: MemoryPaths): BackupInfo | undefined => {
  try {
    return listSync(paths)[0]
  } catch {
    return undefined
  }
}

const recoveryHint = (paths: MemoryPaths): string => {
  const newest = newestBackup(paths)
  return newest === undefined
    ? `There is no backup yet in ${paths.backups}; move the damaged file aside and acx starts a new, empty memory.`
    : `Restore the newest backup (${newest.createdAt.toISOString()}) with: acx memory restore ${
      shellQuote(newest.path)
    }`
}

const corrupt = (paths: MemoryPaths, what: string, cause?: unknown): MemoryError =>
  fail("Corrupt", `${paths.database} is damaged (${what}). ${recoveryHint(paths)}`, cause)

/**
 * Checks the database with `PRAGMA quick_check`, read-only. A missing database is fine (there
 * is nothing to check). A file that is not a database, or fails the check, is a `Corrupt`
 * error whose description says what is wrong and names the command that restores the newest
 * backup (or says there is no backup yet).
 *
 * @since 0.1.0
 * @category checks
 */
export const check: (paths: MemoryPaths) => Effect.Effect<void, MemoryError> = Effect.fn("MemoryBackup.check")(
  function*(paths: MemoryPaths) {
    if (!exists(paths.database)) return
    const problem = yield* Effect.try({
      try: () => withReadonly(paths.database, integrityProblem),
      catch: (error) =>
        isCorruption(error)
          ? corrupt(paths, messageOf(error), error)
          : databaseError(`cannot check ${paths.database}`)(error)
    })
    if (problem !== undefined) return yield* Effect.fail(corrupt(paths, `quick_check: ${problem}`))
  }
)

// A database we cannot read cannot tell us about a worker either; restoring over it is the
// point of a restore.
const runningWorker = (paths: MemoryPaths, now: Date): number | undefined => {
  if (!exists(paths.database)) return undefined
  try {
    return withReadonly(paths.database, (db) => liveWorkerPid(db, now.getTime()))
  } catch {
    return undefined
  }
}

const refuseWhileWorkerRuns = (paths: MemoryPaths, now: Date): Effect.Effect<void, MemoryError> => {
  const pid = runningWorker(paths, now)
  return pid === undefined ? Effect.void : Effect.fail(fail(
    "WorkerRunning",
    `the memory worker (pid ${pid}) is running; stop it (or wait for it to exit) before restoring`
  ))
}

const sourceFile = (paths: MemoryPaths, file: string): Effect.Effect<string, MemoryError> =>
  Effect.gen(function*() {
    const resolved = path.resolve(file)
    const stat = yield* Effect.try({
      try: () => fs.statSync(resolved, { throwIfNoEntry: false }),
      catch: databaseError(`cannot read ${resolved}`)
    })
    if (stat === undefined) return yield* Effect.fail(fail("NotFound", `there is no backup file at ${resolved}`))
    if (!stat.isFile()) return yield* Effect.fail(fail("InvalidArgument", `${resolved} is not a file`))
    if (resolved === path.resolve(paths.database)) {
      return yield* Effect.fail(fail("InvalidArgument", `${resolved} is the memory database itself, not a backup`))
    }
    return resolved
  })

/** Why a file cannot be restored, or `undefined` when it is a sound memory database. */
const unusableBecause = (db: Database.Database): string | undefined => {
  const problem = integrityProblem(db)
  if (problem !== undefined) return `it fails quick_check: ${problem}`
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memory_observations'").get()
  return table === undefined ? "it is an SQLite database but not a memory database (no memory_observations)" : undefined
}

const unusable = (file: string, why: string, cause?: unknown): MemoryError =>
  fail("InvalidArgument", `cannot restore ${file}: ${why}; nothing was changed`, cause)

/** The file to restore, open read-only for the rest of the scope, once it proves sound. */
const openValidated = (file: string): Effect.Effect<Database.Database, MemoryError, Scope.Scope> =>
  Effect.gen(function*() {
    const db = yield* Effect.acquireRelease(
      Effect.try({ try: () => openReadonly(file), catch: (error) => unusable(file, messageOf(error), error) }),
      (db) => Effect.sync(() => closeQuietly(db))
    )
    const problem = yield* Effect.try({
      try: () => unusableBecause(db),
      catch: (error) => unusable(file, messageOf(error), error)
    })
    if (problem !== undefined) return yield* Effect.fail(unusable(file, problem))
    return db
  })

// Two restores within one second must not share a name: the second would overwrite the only
// copy of the database the first replaced.
const unusedName = (dir: string, base: string): string => {
  for (let n = 1;; n++) {
    const candidate = path.join(dir, n === 1 ? `${base}.db` : `${base}-${n}.db`)
    if (!exists(candidate)) return candidate
  }
}

/** Keeps the current database before it is replaced: a snapshot if it opens, else its bytes. */
const keepCurrent = (paths: MemoryPaths, now: Date): Effect.Effect<string | undefined, MemoryError> =>
  Effect.gen(function*() {
    if (!exists(paths.database)) return undefined
    yield* makeDirectory(paths.backups)
    const target = unusedName(paths.backups, `pre-restore-${stampOf(now)}`)
    yield* takeSnapshot(paths.database, target, `cannot keep ${paths.database}`).pipe(
      Effect.orElse(() =>
        Effect.try({
          try: () => copyFileTo(paths.database, target),
          catch: databaseError(`cannot keep a copy of ${paths.database} in ${target}; nothing was changed`)
        })
      )
    )
    return target
  })

/** Swaps the copy in; the old WAL goes first, as its frames would be applied to the new file. */
const replaceDatabase = (source: Database.Database, database: string): Effect.Effect<void, MemoryError> => {
  const temp = tempNameFor(database)
  return makeDirectory(path.dirname(database)).pipe(Effect.zipRight(Effect.tryPromise({
    try: async () => {
      try {
        AcxHome.preparePrivateFile(temp)
        await source.backup(temp, { progress: () => ALL_PAGES })
        removeQuietly(`${database}-wal`)
        removeQuietly(`${database}-shm`)
        publish(temp, database)
      } catch (error) {
        removeWithSidecars(temp)
        throw error
      }
    },
    catch: databaseError(`cannot replace ${database}`)
  })))
}

const migrateRestored = (database: string): Effect.Effect<void, MemoryError> =>
  Effect.try({
    try: () => open(database).close(),
    catch: databaseError(`restored ${database}, but cannot migrate it to the current schema`)
  })

/**
 * Replaces the database with a backup (or any sound memory database file). Refuses with
 * `WorkerRunning` while the worker is alive, `NotFound` when the file does not exist, and
 * `InvalidArgument` when it is not a memory database passing `quick_check`; in each case
 * nothing is changed. The current database is kept first as `<backups>/pre-restore-<stamp>.db`,
 * so a restore never loses data; the restored file is then migrated to the current schema.
 *
 * @since 0.1.0
 * @category restore
 */
export const restore: (
  paths: MemoryPaths,
  file: string,
  options?: { readonly now?: Date | undefined }
) => Effect.Effect<RestoreInfo, MemoryError> = Effect.fn("MemoryBackup.restore")(
  function*(paths: MemoryPaths, file: string, options?: { readonly now?: Date | undefined }) {
    const now = options?.now ?? new Date()
    const restored = yield* sourceFile(paths, file)
    yield* Effect.annotateCurrentSpan("file", restored)
    yield* refuseWhileWorkerRuns(paths, now)
    const source = yield* openValidated(restored)
    const previous = yield* keepCurrent(paths, now)
    yield* replaceDatabase(source, paths.database)
    yield* migrateRestored(paths.database)
    return { database: paths.database, restored, previous }
  },
  Effect.scoped
)
