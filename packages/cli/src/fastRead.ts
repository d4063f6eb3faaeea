/**
 * The fast read path (`dist/fast-read.cjs`): `acx sessions --from sqlite:FILE [--json]
 * [--project P]` and `acx stats --from sqlite:FILE [--json] [--by GROUP]` answered without the
 * CLI framework or Effect, when the answer is certain to be the full path's. The bin hands a
 * `sessions`/`stats … --from …` command line to {@link main} first; `sessions` is answered only when
 *
 * - the command line is exactly that shape (any other option, a repeated one, `--opt=value`:
 *   not this path's to judge);
 * - `--from` names an existing SQLite file (`SqliteSpec`, the grammar `DatabaseSpec` reads),
 *   which opens read-only;
 * - the store's schema is the one these reads are written for and its derived data covers every
 *   entry (`StoreCatalogSql.READINESS`, one query; a catalog read would otherwise derive first,
 *   which only the store does);
 * - the listing is not empty (the full path words that case).
 *
 * `stats` reads the store the same way and answers only from `StoreStats`' cache when the full
 * path would fold and write nothing (`internal/fastStats.ts`).
 *
 * Anything else, and any error, hands the command back (returns `false`) and the full CLI path
 * runs: it is the reference. What is printed is computed by the full path's own parts: the same
 * statement (`StoreCatalogSql.listSessions`) in one read transaction with the check, the same
 * row mapping (`storedSessionOf`, `StoreListing.sessionInfoOf`), the same rows and order
 * (`ListingRows.rows`), the same rendering (`sessionsTable`, `format.json`). A test compares both
 * paths' output byte for byte (docs/design.md, "Reading commands start fast").
 *
 * @since 0.3.0
 */
import * as ListingRows from "@acx/claude-code/ListingRows"
import * as StoreListing from "@acx/claude-code/StoreListing"
import * as SqliteSpec from "@acx/environment/SqliteSpec"
import * as ImportLedgerSql from "@acx/session-store/ImportLedgerSql"
import * as StoreCatalogSql from "@acx/session-store/StoreCatalogSql"
import * as fs from "node:fs"
import { parseArgs } from "./internal/fastArgs.js"
import { answer } from "./internal/fastOutput.js"
import * as FastPgStats from "./internal/fastPgStats.js"
import { openReadOnly } from "./internal/fastSqlite.js"
import * as FastStats from "./internal/fastStats.js"
import * as format from "./internal/format.js"
import * as KeptReport from "./internal/keptReport.js"
import { projectKeyOf } from "./internal/projectKey.js"
import { sessionsTable } from "./internal/sessionsTable.js"

/**
 * A `sessions` command line the fast path takes.
 *
 * @since 0.3.0
 * @category parsing
 */
export interface SessionsRequest {
  readonly from: string
  readonly json: boolean
  readonly project: string | undefined
}

/**
 * The request `sessions`' arguments (after the command) make, or `undefined` when they are not
 * exactly `--from SPEC`, `--json` and `--project P` / `-p P`, each at most once, in any order.
 *
 * @since 0.3.0
 * @category parsing
 */
export const parseSessions = (args: ReadonlyArray<string>): SessionsRequest | undefined => {
  const options = parseArgs(args, {
    values: { "--from": "from", "--project": "project", "-p": "project" },
    flags: { "--json": "json" }
  })
  const from = options?.["from"]
  if (typeof from !== "string") return undefined
  const project = options!["project"]
  return { from, json: options!["json"] === true, project: typeof project === "string" ? project : undefined }
}

/**
 * The meta rows `statement` selects from the SQLite store `from` names, with the store's location
 * (`sqlite:/abs/file`), or `undefined` when the store cannot answer as the catalog would: not a
 * SQLite file, not readable, another schema, derived data behind its entries, any error. The
 * check and the read see one snapshot (an append in between is not half seen).
 *
 * @since 0.3.0
 * @category reading
 */
export const readCatalog = (
  from: string,
  statement: StoreCatalogSql.Statement,
  cwd: string = process.cwd(),
  withOrigins = false
):
  | {
    readonly location: string
    readonly rows: Array<StoreCatalogSql.MetaRow>
    /** With `withOrigins`: the recorded origins, as `StatsOrigins.ofStore` reads them. */
    readonly origins: ListingRows.RowOrigins
  }
  | undefined =>
{
  const filename = SqliteSpec.filenameOf(from, cwd)
  if (filename === undefined) return undefined
  try {
    if (!fs.statSync(filename).isFile()) return undefined
    const db = openReadOnly(filename)
    try {
      const read = db.transaction(() => {
        const ready = db.prepare(StoreCatalogSql.READINESS).get() as { version: unknown; behind: unknown }
        if (ready.version !== StoreCatalogSql.SCHEMA_VERSION || ready.behind !== 0) return undefined
        const rows = db.prepare(statement.sql).all(...statement.params) as Array<StoreCatalogSql.MetaRow>
        const origins = new Map<string, ListingRows.RowOrigin>()
        if (withOrigins) {
          for (const row of db.prepare(ImportLedgerSql.ORIGINS).all() as Array<ImportLedgerSql.OriginRow>) {
            origins.set(`${row.project_key}/${row.session_id}`, { machine: row.machine, project: row.project })
          }
        }
        return { rows, origins }
      })()
      return read === undefined ? undefined : { location: SqliteSpec.display(filename), ...read }
    } finally {
      db.close()
    }
  } catch {
    return undefined
  }
}

/**
 * What `acx sessions` prints for `request` (without the final newline), read from the store
 * directly, or `undefined` when the fast path cannot be sure of it (see the module doc).
 *
 * @since 0.3.0
 * @category reading
 */
export const sessionsOutput = (request: SessionsRequest, cwd: string = process.cwd()): string | undefined => {
  try {
    const projectKey = request.project === undefined ? undefined : projectKeyOf(request.project)
    const read = readCatalog(
      request.from,
      StoreCatalogSql.listSessions(projectKey === undefined ? {} : { projectKey }),
      cwd,
      true
    )
    if (read === undefined || read.rows.length === 0) return undefined
    const list = ListingRows.rows(
      read.rows.map((row) => StoreListing.sessionInfoOf(read.location, StoreCatalogSql.storedSessionOf(row))),
      read.origins
    )
    // a store keeps entries, not files: no sizes, as the full path prints a store's rows
    return request.json ? format.json(list) : sessionsTable(list, { sizes: false })
  } catch {
    return undefined
  }
}

/**
 * Answers `argv` (`process.argv`: node, the bin, `sessions` or `stats`, …) when it can; `false` hands it
 * back to the full CLI. `ACX_FAST_REPORT=1` says on stderr that this path answered (for tests).
 *
 * @since 0.3.0
 * @category running
 */
export const main = (
  argv: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv = process.env
): boolean | Promise<boolean> => {
  const command = argv[2]
  let output: string | undefined
  const pgStats = command === "stats" ? FastStats.parseStats(argv.slice(3), true) : undefined
  // a Postgres store: a report kept by the full path, if the store still lists what it was made of
  if (pgStats !== undefined && KeptReport.postgresStore(pgStats.from) !== undefined) {
    return FastPgStats.statsOutput(pgStats).then(
      (kept) => kept !== undefined && answer(command!, kept, env),
      () => false
    )
  }
  if (command === "sessions") {
    const request = parseSessions(argv.slice(3))
    output = request === undefined ? undefined : sessionsOutput(request)
  } else if (command === "stats") {
    const request = FastStats.parseStats(argv.slice(3))
    const read = request === undefined ? undefined : readCatalog(request.from, StoreCatalogSql.listSessions())
    output = read === undefined ? undefined : FastStats.statsOutput(request!, read.location, read.rows)
  }
  return output === undefined ? false : answer(command, output, env)
}
