/**
 * The first step of `acx sync` (`commands/sync.ts`): whether the config directory is unchanged
 * since the last sync into a SQLite store — the usual case of a hook's sync — decided without
 * Effect from the store's ledger and the files' `stat`. Then the command prints the summary
 * ({@link unchangedSummary}) and is done; else the sync (`commands/run/sync.ts`, `ClaudeSync`)
 * runs. The step is sure only when
 *
 * - the sync runs once (no `--watch`), and `--machine` (if given) is a machine name;
 * - the config directory is a directory whose tree is plain (`PlainListing.importFiles`: no
 *   symbolic link, nothing the listing would leave out with a warning), and lists a session;
 * - the target is an existing SQLite store (`--to`, else `sqlite:$ACX_HOME/sessions.db`) of the
 *   schema this acx writes (no migration to run), opened read-only;
 * - the sync's lock directory exists and is empty before and after the check: no sync holds the
 *   lock or waits to break it, no `again` mark asks for another pass;
 * - in one read transaction of the store, no key has entries its catalog has not derived
 *   (`StoreCatalogSql.READINESS`: a sync killed while it derived leaves some), and the import
 *   would read and record nothing (`UnchangedSync.unchangedImport`, the check `ClaudeImport` makes
 *   too: the ledger holds a record of every file at its size and mtime, every session's origin is
 *   recorded).
 *
 * It writes nothing anywhere: the sync would have appended nothing, recorded no origin, moved no
 * ledger record and derived nothing. A sync that takes the lock while the step looks is either
 * one the step precedes (what it stored is newer than the records read here) or one that still
 * holds the lock at the second look, so nothing is claimed that another sync is still writing.
 * Any doubt, and any error (a store that is not one, a missing `projects`), is the sync's to
 * run and to word.
 *
 * @since 0.6.0
 */
import * as PlainListing from "@acx/claude-code/PlainListing"
import * as UnchangedSync from "@acx/claude-code/UnchangedSync"
import * as AcxHome from "@acx/environment/AcxHome"
import * as SqliteSpec from "@acx/environment/SqliteSpec"
import * as ImportLedgerSql from "@acx/session-store/ImportLedgerSql"
import * as OriginNames from "@acx/session-store/OriginNames"
import * as StoreCatalogSql from "@acx/session-store/StoreCatalogSql"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { CommandIo } from "../CommandIo.js"
import type { SyncOptions } from "../commands/args/sync.js"
import { configDirOf } from "./configDir.js"
import { acxPaths } from "./ioPaths.js"
import { openReadOnly } from "./readOnlyStore.js"
import { summary, summaryJson } from "./syncSummary.js"

type Io = Pick<CommandIo, "env" | "cwd">

const isDirectory = (dir: string): boolean => fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true

// The store's file: the default one made owner-only as the sync makes it (`run/sync.ts`); a named
// one must exist already (the sync words a missing one, or creates it).
const storeFile = (to: string | undefined, io: Io): string | undefined => {
  if (to === undefined) {
    const file = acxPaths(io).sessionsDatabase
    if (!fs.existsSync(file)) return undefined
    AcxHome.makeHome(path.dirname(file))
    AcxHome.preparePrivateFile(file)
    return file
  }
  const file = SqliteSpec.filenameOf(to, io.cwd)
  return file !== undefined && fs.statSync(file, { throwIfNoEntry: false })?.isFile() === true ? file : undefined
}

// Free: the lock's directory exists (a sync ran here before) and holds nothing: no `.acx-lock`,
// no breaker's marker, no `again` mark.
const lockFree = (dir: string): boolean => {
  try {
    return fs.readdirSync(dir).length === 0
  } catch {
    return false
  }
}

interface Recorded {
  readonly records: Map<string, UnchangedSync.RecordedFile>
  readonly origins: Map<string, Set<string>>
}

// The source's ledger records and the recorded origins, in one read transaction; `undefined`
// when the store is of another schema, has entries its catalog has not derived, or holds no
// record of this source (a first sync, or an older acx's path-keyed records the sync adopts).
const readRecorded = (file: string, source: string): Recorded | undefined => {
  const db = openReadOnly(file)
  try {
    return db.transaction(() => {
      const ready = db.prepare(StoreCatalogSql.READINESS).get() as { version: unknown; behind: unknown }
      if (ready.version !== StoreCatalogSql.SCHEMA_VERSION || ready.behind !== 0) return undefined
      const rows = db.prepare(ImportLedgerSql.IMPORTED_FILES).all(source) as Array<ImportLedgerSql.LedgerRow>
      if (rows.length === 0) return undefined
      const records = new Map<string, UnchangedSync.RecordedFile>()
      for (const row of rows) records.set(row.file, { size: Number(row.size), mtimeMs: Number(row.mtimeMs) })
      const origins = new Map<string, Set<string>>()
      for (const row of db.prepare(ImportLedgerSql.ORIGIN_KEYS).all() as Array<Record<string, string>>) {
        const sessions = origins.get(row["project_key"]!) ?? new Set<string>()
        sessions.add(row["session_id"]!)
        origins.set(row["project_key"]!, sessions)
      }
      return { records, origins }
    })()
  } finally {
    db.close()
  }
}

// The result the sync would print, or `undefined` when it may have work (see the module doc).
const unchangedResult = (
  options: SyncOptions,
  io: Io,
  file: string,
  configDir: string
): UnchangedSync.UnchangedResult | undefined => {
  const projectsDir = fs.realpathSync(path.join(configDir, "projects"))
  const lockDir = path.join(
    acxPaths(io).syncLocks,
    UnchangedSync.lockName(SqliteSpec.display(file), projectsDir)
  )
  if (!lockFree(lockDir)) return undefined
  const machine = options.machine ?? OriginNames.machineName(os.hostname())
  const recorded = readRecorded(file, OriginNames.sourceOf(machine, projectsDir))
  if (recorded === undefined) return undefined
  const listing = PlainListing.importFiles(configDir, acxPaths(io).cache)
  if (listing === undefined) return undefined
  const result = UnchangedSync.unchangedImport(
    listing,
    recorded.records,
    (projectKey, sessionId) => recorded.origins.get(projectKey)?.has(sessionId) === true
  )
  // a sync that took the lock meanwhile may still be writing what it found: its output, not ours
  return result === undefined || !lockFree(lockDir) ? undefined : result
}

/**
 * What `acx sync` prints (without the final newline) when the config directory is unchanged
 * since the last sync into its SQLite store, or `undefined` when the sync must run (see the
 * module doc). `started` is when the command started (`Date.now()`), for the time the summary
 * states.
 *
 * @since 0.6.0
 * @category syncing
 */
export const unchangedSummary = (options: SyncOptions, io: Io, started: number = Date.now()): string | undefined => {
  // a name stores do not keep as given is the sync's one line
  if (options.watch || (options.machine !== undefined && !OriginNames.isMachineName(options.machine))) {
    return undefined
  }
  try {
    const configDir = configDirOf(options.configDir, io.env, io.cwd).resolved
    if (!isDirectory(configDir)) return undefined
    const file = storeFile(options.to, io)
    if (file === undefined) return undefined
    const result = unchangedResult(options, io, file, configDir)
    if (result === undefined) return undefined
    const target = SqliteSpec.display(file)
    const seconds = (Date.now() - started) / 1000
    return options.json ? summaryJson(result, 1, target, seconds) : summary(result, target, seconds)
  } catch {
    // whatever the step cannot read, the sync reads and words
    return undefined
  }
}
