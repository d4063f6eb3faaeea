/**
 * The fast path of an unchanged `acx sync` (`dist/fast-sync.cjs`): `acx sync [--to sqlite:FILE]
 * [--config-dir DIR] [--json] [--background] [--no-mask] [--machine M] [--user U]` answered without the CLI
 * framework or Effect when the sync would read, store and record nothing — the usual case of a
 * hook's sync or a `--watch` rescan. The bin hands such a command line to {@link main} first.
 * It answers only when
 *
 * - the command line is exactly that shape (`--watch`, any other option, a repeated one,
 *   `--opt=value`: not this path's to judge), `--machine` (if given) is a machine name;
 * - the config directory is a directory whose tree is plain (`PlainListing.importFiles`: no
 *   symbolic link, nothing the full listing would leave out with a warning), and lists a session;
 * - the target is an existing SQLite store (`--to`, else `sqlite:$ACX_HOME/sessions.db`) of the
 *   schema this acx writes (no migration to run), opened read-only;
 * - the sync's lock directory exists and is empty before and after the check: no sync holds the
 *   lock or waits to break it, no `again` mark asks for another pass;
 * - in one read transaction of the store, no key has entries its catalog has not derived
 *   (`StoreCatalogSql.READINESS`: a sync killed while it derived leaves some), the ledger holds a
 *   record of every file at its size and mtime, and every session's origin is recorded
 *   (`UnchangedSync.unchangedImport`).
 *
 * It then prints the full path's summary (`internal/syncSummary.ts`) with its own time, and
 * writes nothing anywhere: the full path would have appended nothing, recorded no origin, moved
 * no ledger record and derived nothing (its catalog step finds no key behind). A sync
 * that takes the lock while this path looks is either one this check precedes (what it stored
 * is newer than the records read here, or it still holds the lock at the second look), so
 * nothing is claimed that another sync is still writing.
 *
 * Anything else, and any error, hands the command back (`false`) before anything is printed,
 * and the full CLI runs: it is the reference (docs/design.md, "Reading commands start fast").
 *
 * @since 0.4.0
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
import { configDirOf } from "./internal/configDir.js"
import { parseArgs } from "./internal/fastArgs.js"
import { answer } from "./internal/fastOutput.js"
import { openReadOnly } from "./internal/fastSqlite.js"
import { summary, summaryJson } from "./internal/syncSummary.js"

/**
 * A `sync` command line the fast path takes.
 *
 * @since 0.4.0
 * @category parsing
 */
export interface SyncRequest {
  readonly to: string | undefined
  readonly configDir: string | undefined
  readonly json: boolean
  readonly machine: string | undefined
}

/**
 * The request `sync`'s arguments (after the command) make, or `undefined` when they are not
 * exactly of the shape this path takes (see the module doc).
 *
 * @since 0.4.0
 * @category parsing
 */
export const parseSync = (args: ReadonlyArray<string>): SyncRequest | undefined => {
  const options = parseArgs(args, {
    values: { "--to": "to", "--config-dir": "configDir", "--machine": "machine", "--user": "user" },
    // `--no-mask` changes what a sync stores, and an unchanged one stores nothing
    flags: { "--json": "json", "--background": "background", "--no-mask": "noMask" }
  })
  if (options === undefined) return undefined
  const text = (name: string) => typeof options[name] === "string" ? options[name] : undefined
  const machine = text("machine")
  // a name stores do not keep as given is the full path's one line
  if (machine !== undefined && !OriginNames.isMachineName(machine)) return undefined
  return { to: text("to"), configDir: text("configDir"), json: options["json"] === true, machine }
}

const isDirectory = (dir: string): boolean => {
  try {
    return fs.statSync(dir).isDirectory()
  } catch {
    return false
  }
}

// The store's file: the default one made owner-only as the full path makes it (`run/sync.ts`);
// a named one must exist already (the full path words a missing one, or creates it).
const storeFile = (to: string | undefined): string | undefined => {
  if (to === undefined) {
    const file = AcxHome.paths().sessionsDatabase
    if (!fs.existsSync(file)) return undefined
    AcxHome.makeHome(path.dirname(file))
    AcxHome.preparePrivateFile(file)
    return file
  }
  const file = SqliteSpec.filenameOf(to)
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
// record of this source (a first sync, or an older acx's path-keyed records the full path adopts).
const readRecorded = (file: string, source: string): Recorded | undefined => {
  const db = openReadOnly(file)
  try {
    return db.transaction(() => {
      const ready = db.prepare(StoreCatalogSql.READINESS).get() as { version: unknown; behind: unknown }
      // entries not derived yet (a sync killed while it derived): the full path derives them
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

/**
 * What `acx sync` prints for `request` (without the final newline), or `undefined` when this
 * path cannot be sure the sync has nothing to do (see the module doc). `started` is when the
 * command started (`Date.now()`), for the time the summary states.
 *
 * @since 0.4.0
 * @category syncing
 */
export const syncOutput = (request: SyncRequest, started: number = Date.now()): string | undefined => {
  const configDir = configDirOf(request.configDir).resolved
  if (!isDirectory(configDir)) return undefined
  const file = storeFile(request.to)
  if (file === undefined) return undefined
  const target = SqliteSpec.display(file)
  const projectsDir = fs.realpathSync(path.join(configDir, "projects"))
  const lockDir = path.join(AcxHome.paths().syncLocks, UnchangedSync.lockName(target, projectsDir))
  if (!lockFree(lockDir)) return undefined
  const machine = request.machine ?? OriginNames.machineName(os.hostname())
  const recorded = readRecorded(file, OriginNames.sourceOf(machine, projectsDir))
  if (recorded === undefined) return undefined
  const listing = PlainListing.importFiles(configDir)
  if (listing === undefined) return undefined
  const result = UnchangedSync.unchangedImport(
    listing,
    recorded.records,
    (projectKey, sessionId) => recorded.origins.get(projectKey)?.has(sessionId) === true
  )
  // a sync that took the lock meanwhile may still be writing what it found: its output, not ours
  if (result === undefined || !lockFree(lockDir)) return undefined
  const seconds = (Date.now() - started) / 1000
  return request.json ? summaryJson(result, 1, target, seconds) : summary(result, target, seconds)
}

/**
 * Answers `argv` (`process.argv`: node, the bin, `sync`, …) when it can; `false` hands it back
 * to the full CLI. `ACX_FAST_REPORT=1` says on stderr that this path answered (for tests).
 *
 * @since 0.4.0
 * @category running
 */
export const main = (argv: ReadonlyArray<string>, env: NodeJS.ProcessEnv = process.env): boolean => {
  const started = Date.now()
  let output: string | undefined
  try {
    const request = argv[2] === "sync" ? parseSync(argv.slice(3)) : undefined
    output = request === undefined ? undefined : syncOutput(request, started)
  } catch {
    output = undefined
  }
  return output === undefined ? false : answer("sync", output, env)
}
