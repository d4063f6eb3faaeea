/**
 * What `acx stats` does (its options: `../stats.ts`): the statistics (`@acx/claude-code/SessionStats`,
 * which the web page shares), and their table and JSON.
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as ListingWarnings from "@acx/claude-code/ListingWarnings"
import * as SessionStats from "@acx/claude-code/SessionStats"
import * as StatsOrigins from "@acx/claude-code/StatsOrigins"
import * as StoreStats from "@acx/claude-code/StoreStats"
import * as StoreStatsCache from "@acx/claude-code/StoreStatsCache"
import * as TranscriptStats from "@acx/claude-code/TranscriptStats"
import * as Pricing from "@acx/convert/Pricing"
import * as StatsReport from "@acx/convert/StatsReport"
import * as StoreCatalogSql from "@acx/session-store/StoreCatalogSql"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as CliError from "../../CliError.js"
import type { CommandIo } from "../../CommandIo.js"
import { acxPaths, CurrentIo } from "../../internal/currentIo.js"
import * as format from "../../internal/format.js"
import * as KeptReport from "../../internal/keptReport.js"
import { listingPlace, projectsLayer, storeSource } from "../../internal/source.js"
import { statsReport as table } from "../../internal/statsTable.js"
import type { StatsOptions } from "../args/stats.js"

/**
 * The table (a row per group; a row with several models is followed by one sub-row per model)
 * and the totals block (`internal/statsTable.ts`, which the fast read path loads without Effect).
 *
 * @since 0.1.0
 * @category rendering
 */
export const statsReport = table

// The folds of the config directory's transcripts, or (`--from`) of a store's, cached per
// session (`StoreStats`, the same fold: the same report for the same entries), and the
// `ClaudeProjects` they came from (where "no sessions …" looked). `fold` folds again each time it
// runs (`--live`), from the cache: only what was appended is read. Grouped by project, machine or
// user, each session's origin (`StatsOrigins`: recorded in the store, else this machine).
// the pricing of the io's acx home, then the folds cached under it
const folding = <A, E, R>(
  io: CommandIo,
  fold: (options: { readonly pricing: Pricing.PricingTable; readonly cacheDir: string }) => Effect.Effect<A, E, R>
) => {
  const paths = acxPaths(io)
  return Effect.flatMap(
    TranscriptStats.loadPricing(paths.pricing),
    (pricing) => fold({ pricing, cacheDir: paths.cache })
  )
}

const source = ({ by, configDir, followSymlinks, from, project }: StatsOptions, io: CommandIo) => {
  const key = project
  const byOrigin = by !== "block" && StatsReport.byOrigin(by)
  return from === undefined
    ? Effect.gen(function*() {
      const projects = yield* ClaudeProjects.ClaudeProjects
      const context = yield* Effect.context<ClaudeProjects.ClaudeProjects>()
      const folds = folding(io, (options) => SessionStats.foldStats(projects, key, options))
      const fold = (byOrigin
        ? Effect.zipWith(folds, StatsOrigins.ofProjects(projects, key), StatsOrigins.withOrigins)
        : folds).pipe(Effect.provide(context))
      return { projects, fold }
    }).pipe(Effect.provide(projectsLayer(configDir, { followSymlinks })))
    : Effect.gen(function*() {
      const spec = from
      const { openStore, storeProjects } = yield* Effect.promise(storeSource)
      const opened = yield* openStore(spec)
      const projects = storeProjects(opened)
      // a project the store has no session of is said as a listing says it
      if (key !== undefined) yield* projects.listSessionFiles(key)
      const folds = folding(
        io,
        (options) =>
          StoreStats.foldStats({ store: opened.store, location: opened.display, projectKey: key, ...options })
      )
      // the origins kept beside the folds: a kept report is keyed by them too
      const fold = byOrigin
        ? Effect.zipWith(
          folds,
          StatsOrigins.ofStore(opened.store, key),
          (folded, origins) => Object.assign(StatsOrigins.withOrigins(folded, origins), { origins })
        )
        : folds
      return { projects, fold, store: { spec, location: opened.display } }
    })
}

// A Postgres store's report, kept for the fast read path (`internal/keptReport.ts`) under the digest
// of the list it was made from (and of the origins it grouped by) — when the fast path could ask
// for it (the whole store, no range), nothing was warned about, and the statistics cache holds
// every session now.
// Kept as the full path prints it once that cache holds them: every transcript from the cache
// (the JSON's `read`; the printed `output` when nothing was read from the store).
const keepReport = (
  io: CommandIo,
  args: StatsOptions,
  store: { readonly spec: string; readonly location: string },
  folds: SessionStats.StatsFolds,
  result: ReturnType<typeof SessionStats.reportStats>,
  output: string
) => {
  const kept = KeptReport.postgresStore(store.spec, io.env as NodeJS.ProcessEnv)
  const { listed, origins } = folds as Partial<StoreStats.StoreStatsFolds & { origins: StatsOrigins.Origins }>
  const { run } = result
  if (
    kept === undefined || listed === undefined || args.project !== undefined || args.by === "block" ||
    (StatsReport.byOrigin(args.by) && origins === undefined) || result.range.since !== undefined ||
    result.range.until !== undefined ||
    result.report.rows.length === 0 || run.skipped.length > 0 || run.cacheWarning !== undefined ||
    run.folds.some((item) => item.fold.malformed > 0)
  ) return
  const statsCache = KeptReport.fileState(StoreStatsCache.cacheFileOf(acxPaths(io).cache, store.location))
  if (statsCache === undefined) return
  const transcripts = run.files.cached + run.files.appended + run.files.folded
  const asCached = { ...result, run: { ...run, files: { cached: transcripts, appended: 0, folded: 0 } } }
  KeptReport.write(
    kept,
    { by: args.by, json: args.json, pricing: Pricing.fingerprint(folds.pricing) },
    {
      digest: StoreCatalogSql.listDigest(listed),
      origins: origins === undefined ? undefined : StoreCatalogSql.originsDigest(origins),
      statsCache
    },
    args.json && transcripts !== run.files.cached ? format.json(SessionStats.statsJson(asCached)) : output,
    acxPaths(io).cache
  )
}

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = (args: StatsOptions) =>
  Effect.gen(function*() {
    const { by, json, project, since, until } = args
    const parsed = StatsReport.parseDayRange(since, until)
    if (parsed._tag !== "Range") {
      return yield* CliError.invalidArgument(StatsReport.dayRangeMessage(parsed, (bound) => `--${bound}`))
    }
    const range = parsed.range
    if (args.live && by !== "block") return yield* CliError.invalidArgument("--live: only with --by block")
    const { fold, projects, store } = { store: undefined, ...yield* source(args, yield* CurrentIo) }
    if (by === "block") {
      const blocks = yield* Effect.promise(() => import("./statsBlocks.js"))
      return yield* (args.live ? blocks.runLive(args, range, fold) : blocks.runOnce(args, range, fold))
    }
    const folds = yield* fold
    const result = SessionStats.reportStats(folds, by, range)
    // the one set of words (`ListingWarnings`, which `../stats.ts` prints too)
    const warnings = ListingWarnings.statsWarnings(result)
    for (const line of warnings.before) yield* Console.error(line)
    if (json) {
      const output = format.json(SessionStats.statsJson(result))
      yield* Console.log(output)
      if (store !== undefined) keepReport(yield* CurrentIo, args, store, folds, result, output)
      return
    }
    if (result.report.rows.length === 0) {
      const where = range.since !== undefined || range.until !== undefined ? " in that date range" : ""
      return yield* Console.log(`no sessions${where} ${listingPlace(projects, project)}`)
    }
    const output = statsReport(result)
    yield* Console.log(output)
    if (store !== undefined) keepReport(yield* CurrentIo, args, store, folds, result, output)
    if (warnings.after !== undefined) yield* Console.error(warnings.after)
  }).pipe(Effect.scoped)
