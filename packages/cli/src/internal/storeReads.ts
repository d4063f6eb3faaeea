/**
 * `acx sessions --from sqlite:FILE` and `acx stats --from sqlite:FILE`: the one path, without
 * Effect (the command modules `commands/sessions.ts` and `commands/stats.ts` call it). The store's
 * catalog is read here, the readiness check (`StoreCatalogSql.READINESS`: this schema, derived data
 * current) and the statement in one read transaction. A store that must open first (derived data
 * behind its entries, another schema version, not a store, not there) is opened by the Effect
 * store, which migrates and derives or says why it cannot (the command's `prepare` step, loaded
 * only then); then the catalog is read again. `stats` takes the folds from `StoreStatsCache` when
 * it holds every listed session as the catalog has it now, else from `StoreStats.foldStats` (the
 * command's `fold` step: it folds what the cache lacks and writes it). What is printed comes from
 * the shared renderers: `sessionsTable.storeListing`, `statsPrint.printStats`.
 *
 * `acx sessions --from postgres://…` reads a current Postgres store the same way (`pg` alone, one
 * read-only snapshot, `StoreCatalogSql.postgresReadiness`); any other (behind, another schema, no
 * answer) the store lists (`list`). A listing maps each row as it is read
 * (`StoreListing.listedOf`: origins joined in SQL), sorts once and is written in pieces.
 *
 * Built, it is a CommonJS bundle of its own (`dist/store-reads.cjs`): the split ES build's shared
 * chunks would load Effect with it.
 */
import * as ListingRows from "@acx/claude-code/ListingRows"
import * as StatsOutput from "@acx/claude-code/StatsOutput"
import * as StatsPricing from "@acx/claude-code/StatsPricing"
import * as StoreListing from "@acx/claude-code/StoreListing"
import * as StoreStatsCache from "@acx/claude-code/StoreStatsCache"
import * as Pricing from "@acx/convert/Pricing"
import * as StatsReport from "@acx/convert/StatsReport"
import * as SqliteSpec from "@acx/environment/SqliteSpec"
import * as StoreCatalogSql from "@acx/session-store/StoreCatalogSql"
import type Database from "better-sqlite3"
import * as fs from "node:fs"
import type { CommandIo } from "../CommandIo.js"
import type { SessionsOptions } from "../commands/args/sessions.js"
import type { StatsOptions } from "../commands/args/stats.js"
import { acxPaths } from "./ioPaths.js"
import { type PostgresStore, postgresStore, withClient } from "./keptReport.js"
import { listingPlace } from "./listingWords.js"
import { withProjectKey } from "./options.js"
import { openReadOnly } from "./readOnlyStore.js"
import { storeListingChunks } from "./sessionsTable.js"
import { printStats } from "./statsPrint.js"
import { errorLine } from "./userMessage.js"

export { printKept } from "./keptReport.js"

/** A store's catalog as one read saw it: its location (`sqlite:/abs/file`) and meta rows. */
export interface Catalog {
  readonly location: string
  readonly rows: Array<StoreCatalogSql.MetaRow>
}

/**
 * The Effect store's steps, loaded only when they run: `prepare` opens the store (migrating,
 * deriving) and closes it, or says why it cannot (the exit code); `list` lists a store whose
 * catalog these reads do not know (a later schema) through the store, printed as here; `fold`
 * gives a store's folds (`StoreStats.foldStats`), or the exit code of its failure, said.
 */
export interface StoreSteps {
  readonly prepare: (from: string, projectKey: string | undefined, io: CommandIo) => Promise<number>
  readonly list: (options: SessionsOptions & { readonly from: string }, io: CommandIo) => Promise<number>
  readonly fold: (
    options: StatsOptions & { readonly from: string },
    io: CommandIo
  ) => Promise<StatsOutput.StatsFolds | number>
  /** Says why `$ACX_HOME/pricing.json` is refused (the one loader's words); the exit code. */
  readonly refused: (io: CommandIo) => Promise<number>
}

const fail = (io: CommandIo, message: string, code = 1): number => {
  io.stderr(`acx: ${errorLine({ message })}\n`)
  return code
}

/** The SQLite file `from` names, resolved against `io`'s directory; `undefined`: not a SQLite spec. */
export const sqliteFile = (from: string, io: Pick<CommandIo, "cwd">): string | undefined =>
  SqliteSpec.filenameOf(from, io.cwd)

/**
 * What `read` reads of the store in `file`, or `undefined` when the store must open first: not a
 * file, not a SQLite database, another schema version, derived data behind its entries. The check
 * and the read see one snapshot (an append in between is not half seen).
 */
const readStore = <A>(file: string, read: (db: Database.Database) => A): A | undefined => {
  try {
    if (!fs.statSync(file).isFile()) return undefined
    const db = openReadOnly(file)
    try {
      return db.transaction(() => {
        const ready = db.prepare(StoreCatalogSql.READINESS).get() as { version: unknown; behind: unknown }
        return ready.version !== StoreCatalogSql.SCHEMA_VERSION || ready.behind !== 0 ? undefined : read(db)
      })()
    } finally {
      db.close()
    }
  } catch {
    return undefined
  }
}

/** The meta rows `statement` selects from the store in `file` (`undefined`: {@link readStore}'s). */
const readCatalog = (file: string, statement: StoreCatalogSql.Statement): Catalog | undefined => {
  const rows = readStore(
    file,
    (db) => db.prepare(statement.sql).all(...statement.params) as Array<StoreCatalogSql.MetaRow>
  )
  return rows === undefined ? undefined : { location: SqliteSpec.display(file), rows }
}

/**
 * The listing of the sessions `statement` (`StoreCatalogSql.listingRows`) selects from the store
 * in `file`: each row mapped as it is read (`StoreListing.listedOf`), then ordered
 * (`ListingRows.ordered`); `undefined`: {@link readStore}'s.
 */
const readListing = (
  file: string,
  statement: StoreCatalogSql.Statement
): Array<ListingRows.ListedSession> | undefined => {
  const location = SqliteSpec.display(file)
  const listed = readStore(file, (db) => {
    const rows: Array<ListingRows.ListedSession> = []
    const iterated = db.prepare(statement.sql).raw().iterate(...statement.params)
    for (const row of iterated as Iterable<StoreCatalogSql.ListingRow>) rows.push(StoreListing.listedOf(location, row))
    return rows
  })
  return listed === undefined ? undefined : ListingRows.ordered(listed)
}

// The listing; when the store must open first, opened by the Effect store, then read again
// (`undefined`: a catalog of a later schema, which only the store reads).
const listingOf = async (
  from: string,
  file: string,
  projectKey: string | undefined,
  io: CommandIo,
  steps: Pick<StoreSteps, "prepare">
): Promise<Array<ListingRows.ListedSession> | number | undefined> => {
  const statement = StoreCatalogSql.listingRows(projectKey === undefined ? {} : { projectKey })
  const read = readListing(file, statement)
  if (read !== undefined) return read
  const code = await steps.prepare(from, projectKey, io)
  return code !== 0 ? code : readListing(file, statement)
}

// What `acx sessions --from` prints of a store's listing (`display`: the store in messages): of one
// project, none is an error, as a listing says it; else JSON, a table or `no sessions in …` of
// the first `limit` (`--limit`), written in pieces as it is rendered.
const printListing = async (
  list: ReadonlyArray<ListingRows.ListedSession>,
  options: { readonly json: boolean; readonly project: string | undefined; readonly limit?: number | undefined },
  display: string,
  io: CommandIo
): Promise<number> => {
  const place = listingPlace(display, options.project, true)
  if (options.project !== undefined && list.length === 0) return fail(io, `no sessions ${place}`)
  const shown = options.limit === undefined ? list : list.slice(0, options.limit)
  for (const chunk of storeListingChunks(shown, { json: options.json, place })) await io.stdout(chunk)
  await io.stdout("\n")
  return 0
}

/**
 * `acx sessions --from sqlite:FILE`: the store's sessions (of one project: none is an error, as
 * a listing says it), with their recorded origins, as JSON, a table, or `no sessions in …`.
 *
 * @since 0.6.0
 * @category reading
 */
export const sessionsOfStore = async (
  given: SessionsOptions & { readonly from: string },
  file: string,
  io: CommandIo,
  steps: Pick<StoreSteps, "prepare" | "list">
): Promise<number> => {
  // `--project` read here: its label (`projectLabel`) is this module's (the bundle's) to say
  const options = withProjectKey(given, io)
  const list = await listingOf(options.from, file, options.project, io, steps)
  if (typeof list === "number") return list
  if (list === undefined) return steps.list(given, io)
  return printListing(list, options, SqliteSpec.display(file), io)
}

/**
 * The listing of a Postgres store's sessions (of `projectKey`, else all) as the connecting role
 * sees them, read in one read-only snapshot: `undefined` when the store must open first (another
 * schema version, entries not derived yet: the store derives them) or does not answer.
 */
const readPostgresListing = (
  store: PostgresStore,
  projectKey: string | undefined
): Promise<Array<ListingRows.ListedSession> | undefined> =>
  withClient(store, async (client) => {
    await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    const [ready] = (await client.query(StoreCatalogSql.postgresReadiness(store.schema))).rows
    if (Number(ready?.["version"]) !== StoreCatalogSql.POSTGRES_SCHEMA_VERSION || Number(ready?.["behind"]) !== 0) {
      return undefined
    }
    const statement = StoreCatalogSql.postgresListingRows(store.schema, projectKey)
    const { rows } = await client.query({ text: statement.sql, values: statement.params, rowMode: "array" })
    await client.query("COMMIT")
    const listed: Array<ListingRows.ListedSession> = []
    for (const row of rows) listed.push(StoreListing.listedOf(store.display, row as StoreCatalogSql.ListingRow))
    return ListingRows.ordered(listed)
  }).catch(() => undefined)

/**
 * `acx sessions --from postgres://…`: what {@link sessionsOfStore} prints of a SQLite store, read
 * without Effect when the store is current (this schema version, every entry derived); otherwise
 * (or a spec or server this read cannot use) the store lists it (`list`: it derives, migrates,
 * or says why it cannot).
 *
 * @since 0.6.0
 * @category reading
 */
export const sessionsOfPostgres = async (
  given: SessionsOptions & { readonly from: string },
  io: CommandIo,
  steps: Pick<StoreSteps, "list">
): Promise<number> => {
  const options = withProjectKey(given, io)
  const store = postgresStore(options.from, io.env)
  const list = store === undefined ? undefined : await readPostgresListing(store, options.project)
  return list === undefined || store === undefined
    ? steps.list(given, io)
    : printListing(list, options, store.display, io)
}

/**
 * The folds of the listed sessions from `StoreStatsCache`, when the cache holds every one as the
 * catalog has it now (and, for the whole store, no other: `StoreStats` would rewrite it);
 * `undefined` otherwise (the store folds what the cache lacks).
 */
const cachedFolds = (
  read: Catalog,
  options: { readonly pricing: Pricing.PricingTable; readonly cacheDir: string; readonly complete: boolean }
): StatsOutput.StatsFolds | undefined => {
  const { location } = read
  const cached = StoreStatsCache.readCache(
    StoreStatsCache.cacheFileOf(options.cacheDir, location),
    location,
    Pricing.fingerprint(options.pricing)
  )
  const sessions = StoreStatsCache.inDirectoryOrder(read.rows.map(StoreCatalogSql.storedSessionOf))
  if (options.complete && Object.keys(cached).length !== sessions.length) return undefined
  const folds: Array<StatsReport.FileFold> = []
  for (const session of sessions) {
    const transcripts = StoreStatsCache.reusable(cached, session)
    if (transcripts === undefined) return undefined
    folds.push(...StoreStatsCache.fileFolds(location, session, transcripts))
  }
  return {
    pricing: options.pricing,
    run: StoreStatsCache.storeRun(folds, { cached: folds.length, folded: 0 }, undefined)
  }
}

/**
 * `acx stats --from sqlite:FILE`, grouped by what the folds hold (session, day, week, month,
 * model): the report of the store's sessions (of one project: none is an error) within the
 * range, between its warnings.
 *
 * @since 0.6.0
 * @category reading
 */
export const statsOfStore = async (
  given: StatsOptions & { readonly from: string },
  file: string,
  io: CommandIo,
  steps: Pick<StoreSteps, "fold" | "refused">
): Promise<number> => {
  const options = withProjectKey(given, io)
  const parsed = StatsReport.parseDayRange(options.since, options.until)
  if (parsed._tag !== "Range") return fail(io, StatsReport.dayRangeMessage(parsed, (bound) => `--${bound}`), 2)
  if (options.live) return fail(io, "--live: only with --by block", 2)
  const { cache, pricing: pricingFile } = acxPaths(io)
  const loaded = StatsPricing.load(pricingFile)
  if (loaded._tag !== "Table") return steps.refused(io)
  const location = SqliteSpec.display(file)
  const place = listingPlace(location, options.project, true)
  const statement = StoreCatalogSql.listSessions(options.project === undefined ? {} : { projectKey: options.project })
  const read = readCatalog(file, statement)
  if (read !== undefined && options.project !== undefined && read.rows.length === 0) {
    return fail(io, `no sessions ${place}`)
  }
  const complete = options.project === undefined
  const folds =
    (read === undefined ? undefined : cachedFolds(read, { pricing: loaded.table, cacheDir: cache, complete })) ??
      await steps.fold(options, io)
  if (typeof folds === "number") return folds
  const result = StatsOutput.reportStats(folds, options.by as StatsReport.GroupBy, parsed.range)
  await printStats(io, result, { json: options.json, place })
  return 0
}
