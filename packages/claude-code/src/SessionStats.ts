/**
 * The statistics of a config directory's transcripts, as `acx stats` and the web page compute
 * them: every session's main file and subagents' files folded (in worker threads, cached), then
 * grouped into a report, and the report as the `--json` document both print and serve.
 *
 * @since 0.1.0
 */
import type * as Pricing from "@acx/convert/Pricing"
import type * as PricingFile from "@acx/convert/PricingFile"
import type * as StatsReport from "@acx/convert/StatsReport"
import * as Effect from "effect/Effect"
import type * as ClaudeProjects from "./ClaudeProjects.js"
import * as StatsOutput from "./StatsOutput.js"
import * as TranscriptStats from "./TranscriptStats.js"

/**
 * Every transcript of the config directory (of one project, or all; or of the one session
 * `sessionId`): each session's main file and its subagents' files.
 *
 * @since 0.1.0
 * @category statistics
 */
export const transcriptFiles = (
  projects: ClaudeProjects.ClaudeProjects,
  projectKey: string | undefined,
  sessionId?: string | undefined
): Effect.Effect<Array<TranscriptStats.TranscriptFile>, ClaudeProjects.ClaudeProjectsError> =>
  Effect.gen(function*() {
    const listed = yield* projects.listSessionFiles(projectKey)
    const sessions = sessionId === undefined ? listed : listed.filter((session) => session.sessionId === sessionId)
    const perSession = yield* Effect.forEach(
      sessions,
      (session) =>
        projects.listSubagents(session.projectKey, session.sessionId).pipe(
          Effect.map((agents): Array<TranscriptStats.TranscriptFile> => [
            { ...session, kind: "main" },
            ...agents.map((agent) => ({ ...session, file: agent.file, kind: "subagent" as const }))
          ])
        ),
      { concurrency: 16 }
    )
    return perSession.flat()
  })

/**
 * Folds every session (of one project, or all; or the one session `sessionId` of that project,
 * its subagents included: the session page's header), priced with `pricing` (default: the
 * built-in table with `$ACX_HOME/pricing.json` applied), cached in `cacheDir` (default
 * `$ACX_HOME/cache`).
 *
 * @since 0.1.0
 * @category statistics
 */
export const foldStats = (
  projects: ClaudeProjects.ClaudeProjects,
  projectKey: string | undefined,
  options: {
    readonly pricing?: Pricing.PricingTable | undefined
    readonly cacheDir?: string | undefined
    readonly sessionId?: string | undefined
  } = {}
): Effect.Effect<
  StatsFolds,
  ClaudeProjects.ClaudeProjectsError | TranscriptStats.TranscriptStatsError | PricingFile.PricingError
> =>
  Effect.gen(function*() {
    const pricing = options.pricing ?? (yield* TranscriptStats.loadPricing())
    const all = yield* transcriptFiles(projects, projectKey, options.sessionId)
    const run = yield* TranscriptStats.make({
      pricing,
      ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir })
    }).fold(all, { scope: projects.projectsDir, complete: projectKey === undefined && options.sessionId === undefined })
    return { pricing, run }
  })

/**
 * Statistics of every session (of one project, or all), grouped `by`, within `range`, priced
 * with `pricing` (default: the built-in table with `$ACX_HOME/pricing.json` applied).
 *
 * @since 0.1.0
 * @category statistics
 */
export const collectStats = (
  projects: ClaudeProjects.ClaudeProjects,
  projectKey: string | undefined,
  options: {
    readonly by?: StatsReport.GroupBy | undefined
    readonly range?: StatsReport.DayRange | undefined
    readonly pricing?: Pricing.PricingTable | undefined
  } = {}
): Effect.Effect<
  StatsResult,
  ClaudeProjects.ClaudeProjectsError | TranscriptStats.TranscriptStatsError | PricingFile.PricingError
> =>
  Effect.map(
    foldStats(projects, projectKey, { pricing: options.pricing }),
    (folds) => StatsOutput.reportStats(folds, options.by ?? "session", options.range ?? {})
  )

/**
 * What `acx stats` computed: the report, the pricing it used, how the files were read.
 *
 * @since 0.1.0
 * @category models
 */
export type StatsResult = StatsOutput.StatsResult

/**
 * Every transcript folded once, with the pricing it was priced with: group it several ways with
 * {@link reportStats} (the web page's costs draw days, projects and sessions from one fold).
 *
 * @since 0.1.0
 * @category models
 */
export type StatsFolds = StatsOutput.StatsFolds

/**
 * The report of folded transcripts grouped `by`, within `range` (pure: no file is read).
 *
 * @since 0.1.0
 * @category statistics
 */
export const reportStats = StatsOutput.reportStats

/**
 * The `--json` document's type: what {@link statsJson} returns.
 *
 * @since 0.1.0
 * @category models
 */
export type StatsJson = StatsOutput.StatsJson

/**
 * A report row as JSON: the row, with its session id on session rows and ISO timestamps.
 *
 * @since 0.1.0
 * @category rendering
 */
export const rowJson = StatsOutput.rowJson

/**
 * The `--json` document: the rows and total, the day range and time zone, and the rates of
 * every model that appears (by the id they are listed under).
 *
 * @since 0.1.0
 * @category rendering
 */
export const statsJson = StatsOutput.statsJson
