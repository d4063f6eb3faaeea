/**
 * What `acx stats` does (its options: `../stats.ts`): the statistics (`@acx/claude-code/SessionStats`,
 * which the web page shares), and their table and JSON.
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as SessionStats from "@acx/claude-code/SessionStats"
import * as StatsOrigins from "@acx/claude-code/StatsOrigins"
import * as StoreStats from "@acx/claude-code/StoreStats"
import * as StoreStatsCache from "@acx/claude-code/StoreStatsCache"
import * as TranscriptStats from "@acx/claude-code/TranscriptStats"
import * as Pricing from "@acx/convert/Pricing"
import * as StatsReport from "@acx/convert/StatsReport"
import * as StoreCatalogSql from "@acx/session-store/StoreCatalogSql"
import * as Effect from "effect/Effect"
import * as CliError from "../../CliError.js"
import type { CommandIo } from "../../CommandIo.js"
import { acxPaths, CurrentIo } from "../../internal/currentIo.js"
import * as format from "../../internal/format.js"
import * as KeptReport from "../../internal/keptReport.js"
import { listingPlace, projectsLayer, storeSource } from "../../internal/source.js"
import { printStats } from "../../internal/statsPrint.js"
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

// The config directory's folds, and where they came from.
const dirSource = ({ by, configDir, followSymlinks, project: key }: StatsOptions, io: CommandIo) => {
  const byOrigin = by !== "block" && StatsReport.byOrigin(by)
  return Effect.gen(function*() {
    const projects = yield* ClaudeProjects.ClaudeProjects
    const context = yield* Effect.context<ClaudeProjects.ClaudeProjects>()
    const folds = folding(io, (options) => SessionStats.foldStats(projects, key, options))
    const fold = (byOrigin
      ? Effect.zipWith(folds, StatsOrigins.ofProjects(projects, key), StatsOrigins.withOrigins)
      : folds).pipe(Effect.provide(context))
    return { projects, fold }
  }).pipe(Effect.provide(projectsLayer(configDir, { followSymlinks })))
}

// A store's folds (the store opened in the caller's scope), where they came from, and the store.
const storeReading = ({ by, from: spec, project: key }: StatsOptions & { readonly from: string }, io: CommandIo) => {
  const byOrigin = by !== "block" && StatsReport.byOrigin(by)
  return Effect.gen(function*() {
    const { openStore, storeProjects } = yield* Effect.promise(storeSource)
    const opened = yield* openStore(spec)
    const projects = storeProjects(opened)
    // a project the store has no session of is said as a listing says it
    if (key !== undefined) yield* projects.listSessionFiles(key)
    const folds = folding(
      io,
      (options) => StoreStats.foldStats({ store: opened.store, location: opened.display, projectKey: key, ...options })
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

const source = (args: StatsOptions, io: CommandIo) =>
  args.from === undefined
    ? Effect.map(dirSource(args, io), (read) => ({ ...read, store: undefined }))
    : storeReading({ ...args, from: args.from }, io)

// A Postgres store's report, kept for `keptReport.printKept` under the digest of the list it was
// made from (and of the origins it grouped by) — when `printKept` could print it (the whole
// store, no range), nothing was warned about, and the statistics cache holds
// every session now.
// Kept as this path prints it once that cache holds them: every transcript from the cache
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

// The report of `args` from `fold` and `projects` (where "no sessions …" looked), printed by the
// one report step (`internal/statsPrint.ts`); a store's report kept for `printKept`.
const report = <E, R>(
  args: StatsOptions,
  range: StatsReport.DayRange,
  { fold, projects, store }: {
    readonly fold: Effect.Effect<SessionStats.StatsFolds, E, R>
    readonly projects: ClaudeProjects.ClaudeProjects
    readonly store?: { readonly spec: string; readonly location: string } | undefined
  }
) =>
  Effect.gen(function*() {
    const io = yield* CurrentIo
    const folds = yield* fold
    const result = SessionStats.reportStats(folds, args.by as StatsReport.GroupBy, range)
    const place = listingPlace(projects, args.project)
    const printed = yield* Effect.promise(() => printStats(io, result, { json: args.json, place }))
    if (store !== undefined && (args.json || result.report.rows.length > 0)) {
      keepReport(io, args, store, folds, result, printed.output)
    }
  })

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = (args: StatsOptions) =>
  Effect.gen(function*() {
    const { by } = args
    const parsed = StatsReport.parseDayRange(args.since, args.until)
    if (parsed._tag !== "Range") {
      return yield* CliError.invalidArgument(StatsReport.dayRangeMessage(parsed, (bound) => `--${bound}`))
    }
    const range = parsed.range
    if (args.live && by !== "block") return yield* CliError.invalidArgument("--live: only with --by block")
    const read = yield* source(args, yield* CurrentIo)
    if (by === "block") {
      const blocks = yield* Effect.promise(() => import("./statsBlocks.js"))
      return yield* (args.live ? blocks.runLive(args, range, read.fold) : blocks.runOnce(args, range, read.fold))
    }
    yield* report(args, range, read)
  }).pipe(Effect.scoped)

/**
 * The folds of the store `args.from` names (`StoreStats.foldStats`: it opens the store, migrating
 * and deriving, folds what the statistics cache lacks and writes it), for the store reads
 * (`internal/storeReads.ts`); a failure is said on `io`'s stderr and is the exit code.
 *
 * @since 0.6.0
 * @category handlers
 */
export const storeFolds = async (
  args: StatsOptions & { readonly from: string },
  io: CommandIo
): Promise<SessionStats.StatsFolds | number> => {
  let folds: SessionStats.StatsFolds | undefined
  const { runEffect } = await import("../../internal/runEffect.js")
  const code = await runEffect(
    io,
    Effect.scoped(
      Effect.flatMap(storeReading(args, io), (read): Effect.Effect<SessionStats.StatsFolds, unknown> => read.fold)
    ).pipe(
      Effect.map((folded: SessionStats.StatsFolds) => {
        folds = folded
      })
    )
  )
  return folds ?? code
}
