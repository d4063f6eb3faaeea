/**
 * `acx stats [--by session|day|week|month|model|project|block] [--live] [--since D] [--until D]
 * [--project P] [--json]`: tokens and US dollars per row and per model, messages, tool calls, active time and
 * wall span, subagents and compactions; subagent transcripts included, each API message counted
 * once (its last fragment). Days are local days (the time zone of the process, as ccusage).
 * Transcripts are folded on every core and cached under `$ACX_HOME/cache`. `--by block`: 5-hour
 * billing windows with burn rate and quota readings (`run/statsBlocks.ts`), `--live` redraws them.
 *
 * Over a config directory, grouped by what the transcripts' folds hold (session, day, week,
 * month, model), the report is made here without Effect: the walk (`ConfigTree`,
 * `PlainListing.walkedTranscripts`), the prices (`StatsPricing.load`), the fold
 * (`TranscriptFolds.foldTranscripts`), the warnings (`ListingWarnings`), the table or JSON
 * (`StatsOutput`, `statsTable`). Grouped by origin (`project`, `machine`, `user`: each session's
 * git remote, `StatsOrigins`) or by block, and over a store (`--from`): `run/stats.ts`.
 *
 * @since 0.1.0
 */
import * as ConfigTree from "@acx/claude-code/ConfigTree"
import * as ListingWarnings from "@acx/claude-code/ListingWarnings"
import * as PlainListing from "@acx/claude-code/PlainListing"
import * as StatsOutput from "@acx/claude-code/StatsOutput"
import * as StatsPricing from "@acx/claude-code/StatsPricing"
import * as TranscriptFolds from "@acx/claude-code/TranscriptFolds"
import type * as Pricing from "@acx/convert/Pricing"
import * as StatsReport from "@acx/convert/StatsReport"
import * as AcxHome from "@acx/environment/AcxHome"
import * as fs from "node:fs"
import type { CommandIo } from "../CommandIo.js"
import type { CommandRun } from "../CommandSpec.js"
import type { groupings } from "../CommandTable.js"
import { effectCommand } from "../internal/effectCommand.js"
import * as format from "../internal/format.js"
import { configDirectory, failureWords, listingPlace } from "../internal/listingWords.js"
import { withProjectKey } from "../internal/options.js"
import * as StatsSummary from "../internal/statsSummary.js"
import { statsReport } from "../internal/statsTable.js"
import { errorLine } from "../internal/userMessage.js"
import { fastAnswer } from "./sessions.js"

/**
 * What `acx stats` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface StatsOptions {
  readonly configDir: string | undefined
  readonly from: string | undefined
  readonly project: string | undefined
  readonly json: boolean
  readonly by: typeof groupings[number]
  readonly followSymlinks: boolean
  readonly since: string | undefined
  readonly until: string | undefined
  readonly live: boolean
  readonly interval: number
}

const full: CommandRun<StatsOptions> = effectCommand(async (options) =>
  (await import("./run/stats.js")).run(withProjectKey(options))
)

const fail = (io: CommandIo, error: unknown, code = 1): number => {
  io.stderr(`acx: ${errorLine(error)}\n`)
  return code
}

const isDirectory = (dir: string): boolean | undefined => fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()

// The prices, or the exit code of their refusal: the one loader's words (`TranscriptStats.loadPricing`
// types a refused shape with its Schema, which only that case loads).
const pricesOf = async (io: CommandIo): Promise<Pricing.PricingTable | number> => {
  const loaded = StatsPricing.load(AcxHome.paths().pricing)
  if (loaded._tag === "Table") return loaded.table
  const [{ loadPricing }, { runEffect }] = await Promise.all([
    import("@acx/claude-code/TranscriptStats"),
    import("../internal/runEffect.js")
  ])
  return runEffect(io, loadPricing())
}

// The transcripts to fold and the walk's left-out paths, or the listing's failure in the user's words.
const transcriptsOf = (configDir: string, options: StatsOptions) => {
  const walk = ConfigTree.walkOf(configDir, options.followSymlinks)
  try {
    return { walk, files: PlainListing.walkedTranscripts(walk, options.project) }
  } catch (cause) {
    if (!(cause instanceof ConfigTree.TreeFailure)) throw cause
    return { walk, failure: failureWords(walk.projectsDir, options.project, cause) }
  }
}

/**
 * `acx stats` over a config directory, grouped by what the folds hold: its report on stdout
 * between its warnings on stderr (what a fold skipped and a cache it could not write before, the
 * malformed lines after), as `run/stats.ts` prints a store's. A warm run with nothing to warn
 * about in its fold prints the report it kept (`internal/statsSummary.ts`) while nothing it read
 * changed.
 *
 * @since 0.6.0
 * @category commands
 */
export const statsOfConfigDir = async (options: StatsOptions, io: CommandIo): Promise<number> => {
  const parsed = StatsReport.parseDayRange(options.since, options.until)
  if (parsed._tag !== "Range") {
    return fail(io, { message: StatsReport.dayRangeMessage(parsed, (bound) => `--${bound}`) }, 2)
  }
  if (options.live) return fail(io, { message: "--live: only with --by block" }, 2)
  const found = configDirectory(options.configDir, isDirectory)
  if ("problem" in found) return fail(io, { message: found.problem })
  const pricing = await pricesOf(io)
  if (typeof pricing === "number") return pricing
  const listed = transcriptsOf(found.resolved, options)
  for (const skipped of listed.walk.skipped) io.stderr(`${ListingWarnings.skippedWarning(skipped)}\n`)
  if (listed.failure !== undefined) return fail(io, { _tag: "ClaudeProjectsError", description: listed.failure })
  const { projectsDir } = listed.walk
  const scope = { scope: projectsDir, complete: options.project === undefined }
  // a warm run's report, kept while nothing it read has changed (the walk's warnings are said above)
  const keeps = options.project === undefined
  const summaryFile = StatsSummary.summaryFileOf(AcxHome.paths().cache, projectsDir)
  const key = JSON.stringify([options.by, options.json, options.since ?? null, options.until ?? null])
  const before = keeps ? TranscriptFolds.stateDigest(listed.files, scope, { pricing }) : undefined
  const kept = before === undefined ? undefined : StatsSummary.keptOutput(summaryFile, before, key)
  if (kept !== undefined) {
    await io.stdout(`${kept}\n`)
    return 0
  }
  let run: TranscriptFolds.StatsRun
  try {
    run = await TranscriptFolds.foldTranscripts(listed.files, scope, { pricing })
  } catch (error) {
    const failure = error instanceof TranscriptFolds.FoldFailure ? error : new TranscriptFolds.FoldFailure(0, error)
    return fail(io, { _tag: "TranscriptStatsError", description: failure.message })
  }
  const result = StatsOutput.reportStats({ pricing, run }, options.by as StatsReport.GroupBy, parsed.range)
  const warnings = ListingWarnings.statsWarnings(result)
  for (const line of warnings.before) io.stderr(`${line}\n`)
  const output = options.json
    ? format.json(StatsOutput.statsJson(result))
    : result.report.rows.length === 0
    ? `no sessions${
      parsed.range.since !== undefined || parsed.range.until !== undefined ? " in that date range" : ""
    } ${listingPlace(projectsDir, options.project, false)}`
    : statsReport(result)
  await io.stdout(`${output}\n`)
  // the malformed lines are said under a table (as `run/stats.ts` says them)
  const table = !options.json && result.report.rows.length > 0
  if (table && warnings.after !== undefined) io.stderr(`${warnings.after}\n`)
  const quiet = warnings.before.length === 0 && warnings.after === undefined && result.report.rows.length > 0
  if (before !== undefined && quiet && run.files.folded === 0 && run.files.appended === 0) {
    // what a run that folds nothing prints, as long as the state it read stays as it was
    if (TranscriptFolds.stateDigest(listed.files, scope, { pricing }) === before) {
      StatsSummary.keepOutput(summaryFile, before, key, output)
    }
  }
  return 0
}

// The groupings of the transcripts' folds alone (an origin grouping reads each session's git remote).
const FOLD_GROUPINGS: ReadonlyArray<string> = ["session", "day", "week", "month", "model"]

/**
 * Over a config directory grouped by the folds: {@link statsOfConfigDir}; over a store, the
 * fast answer first (`sessions.ts`' {@link fastAnswer}), else the full report (`run/stats.ts`);
 * by origin or by block: `run/stats.ts`.
 *
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<StatsOptions> = async (options, io) =>
  options.from === undefined && FOLD_GROUPINGS.includes(options.by)
    ? statsOfConfigDir(withProjectKey(options), io)
    : options.from !== undefined && (await fastAnswer(io))
    ? 0
    : full(options, io)
