/**
 * `acx sessions` and `acx stats` over a config directory: the one path, without Effect (the
 * command modules `commands/sessions.ts` and `commands/stats.ts` call it). The walk
 * (`ConfigTree`), the listing (`PlainListing.sessionsListing`) or the transcripts to fold
 * (`PlainListing.walkedTranscripts`), the prices (`StatsPricing.load`), the fold
 * (`TranscriptFolds.foldTranscripts`), the warnings (`ListingWarnings`), the table or JSON
 * (`sessionsTable`, `StatsOutput`, `statsTable`). Nothing it imports loads Effect
 * (`test/plainReads.imports.test.ts`). Built, it is a CommonJS bundle of its own
 * (`dist/config-reads.cjs`): one file starts faster than the split ES build's chunks.
 */
import * as ConfigTree from "@acx/claude-code/ConfigTree"
import type * as ListingRows from "@acx/claude-code/ListingRows"
import * as ListingWarnings from "@acx/claude-code/ListingWarnings"
import * as PlainListing from "@acx/claude-code/PlainListing"
import type * as StatsOutput from "@acx/claude-code/StatsOutput"
import * as StatsPricing from "@acx/claude-code/StatsPricing"
import * as StoreStatsCache from "@acx/claude-code/StoreStatsCache"
import * as TranscriptFolds from "@acx/claude-code/TranscriptFolds"
import type * as Pricing from "@acx/convert/Pricing"
import * as StatsReport from "@acx/convert/StatsReport"
import type * as AcxHome from "@acx/environment/AcxHome"
import * as fs from "node:fs"
import * as path from "node:path"
import type { CommandIo } from "../CommandIo.js"
import type { SessionsOptions } from "../commands/args/sessions.js"
import type { StatsOptions } from "../commands/args/stats.js"
import * as format from "./format.js"
import { acxPaths } from "./ioPaths.js"
import * as KeptReport from "./keptReport.js"
import { configDirectory, failureWords, listingPlace } from "./listingWords.js"
import { withProjectKey } from "./options.js"
import { sessionsTable, terminalHeading, terminalRows } from "./sessionsTable.js"
import { printStats } from "./statsPrint.js"
import { errorLine } from "./userMessage.js"

/**
 * Says why `$ACX_HOME/pricing.json` is refused and resolves to the exit code
 * (`TranscriptStats.loadPricing` words a refused shape with its Schema: Effect, loaded only then,
 * by the command module).
 */
export type Refusal = (io: CommandIo) => Promise<number>

const fail = (io: CommandIo, error: unknown, code = 1): number => {
  io.stderr(`acx: ${errorLine(error)}\n`)
  return code
}

// `$ACX_HOME`'s paths as the io's environment names them
const homeOf = (io: CommandIo): AcxHome.AcxPaths => acxPaths(io)

const isDirectory = (dir: string): boolean | undefined => fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()

// The prices, or the exit code of their refusal (`refused`: the one loader's words).
const pricesOf = async (io: CommandIo, refused: Refusal): Promise<Pricing.PricingTable | number> => {
  const loaded = StatsPricing.load(homeOf(io).pricing)
  return loaded._tag === "Table" ? loaded.table : refused(io)
}

// The transcripts to fold and the walk's left-out paths, or the listing's failure in the user's words.
const transcriptsOf = (configDir: string, options: StatsOptions, cacheDir: string) => {
  const walk = ConfigTree.walkOf(configDir, options.followSymlinks, cacheDir)
  try {
    const files = PlainListing.walkedTranscripts(walk, options.project)
    ConfigTree.saveIndex(walk)
    return { walk, files }
  } catch (cause) {
    if (!(cause instanceof ConfigTree.TreeFailure)) throw cause
    return { walk, failure: failureWords(walk.projectsDir, options.project, cause) }
  }
}

/**
 * `acx stats` over a config directory, grouped by what the folds hold: its report on stdout
 * between its warnings on stderr (what a fold skipped and a cache it could not write before, the
 * malformed lines after), as `run/stats.ts` prints a store's. A warm run with nothing to warn
 * about in its fold prints the report it kept (`internal/keptReport.ts`) while nothing it read
 * changed.
 *
 * @since 0.6.0
 * @category reading
 */
export const statsOfConfigDir = async (given: StatsOptions, io: CommandIo, refused: Refusal): Promise<number> => {
  // `--project` read here: its label (`projectLabel`) is this module's (the bundle's) to say
  const options = withProjectKey(given, io)
  const parsed = StatsReport.parseDayRange(options.since, options.until)
  if (parsed._tag !== "Range") {
    return fail(io, { message: StatsReport.dayRangeMessage(parsed, (bound) => `--${bound}`) }, 2)
  }
  if (options.live) return fail(io, { message: "--live: only with --by block" }, 2)
  const found = configDirectory(options.configDir, isDirectory, io.env, io.cwd)
  if ("problem" in found) return fail(io, { message: found.problem })
  const pricing = await pricesOf(io, refused)
  if (typeof pricing === "number") return pricing
  const listed = transcriptsOf(found.resolved, options, homeOf(io).cache)
  for (const skipped of listed.walk.skipped) io.stderr(`${ListingWarnings.skippedWarning(skipped)}\n`)
  if (listed.failure !== undefined) return fail(io, { _tag: "ClaudeProjectsError", description: listed.failure })
  const { projectsDir } = listed.walk
  const scope = { scope: projectsDir, complete: options.project === undefined }
  // a warm run's report, kept while nothing it read has changed (the walk's warnings are said above)
  const keeps = options.project === undefined
  const { cache } = homeOf(io)
  const key = JSON.stringify([options.by, options.json, options.since ?? null, options.until ?? null])
  const summaryFile = KeptReport.summaryFileOf(cache, projectsDir, key)
  const before = keeps
    ? TranscriptFolds.stateDigest(listed.files, scope, { pricing, cacheDir: cache }, listed.walk.stats)
    : undefined
  const kept = before === undefined ? undefined : KeptReport.keptOutput(summaryFile, before, key)
  if (kept !== undefined) {
    await io.stdout(`${kept}\n`)
    return 0
  }
  // the report made as the folds come, never all held: only those with malformed lines are kept
  // (the warnings and the `--json` document name them)
  const reducer = StatsReport.reportReducer(options.by as StatsReport.GroupBy, parsed.range, pricing)
  const onFold = (fold: StatsReport.FileFold) => {
    reducer.add(fold)
    return fold.fold.malformed > 0
  }
  let run: TranscriptFolds.StatsRun
  try {
    run = await TranscriptFolds.foldTranscripts(listed.files, scope, { pricing, cacheDir: cache, onFold })
  } catch (error) {
    const failure = error instanceof TranscriptFolds.FoldFailure ? error : new TranscriptFolds.FoldFailure(0, error)
    return fail(io, { _tag: "TranscriptStatsError", description: failure.message })
  }
  const result: StatsOutput.StatsResult = { report: reducer.finish(), pricing, range: parsed.range, run }
  const { output, warnings } = await printStats(io, result, {
    json: options.json,
    place: listingPlace(projectsDir, options.project, false)
  })
  const quiet = warnings.before.length === 0 && warnings.after === undefined && result.report.rows.length > 0
  if (before !== undefined && quiet && run.files.folded === 0 && run.files.appended === 0) {
    // what a run that folds nothing prints, as long as the state it read stays as it was
    if (TranscriptFolds.stateDigest(listed.files, scope, { pricing, cacheDir: cache }) === before) {
      KeptReport.keepOutput(summaryFile, before, key, output)
    }
  }
  return 0
}

/**
 * `acx sessions` over a config directory: the one listing (`PlainListing.sessionsListing`), each
 * path it left out warned about once on stderr (`ListingWarnings.skippedWarning`), a failure as
 * one `acx:` line (exit 1).
 *
 * @since 0.6.0
 * @category reading
 */
export const listConfigDir = async (given: SessionsOptions, io: CommandIo): Promise<number> => {
  const options = withProjectKey(given, io)
  const found = configDirectory(options.configDir, isDirectory, io.env, io.cwd)
  if ("problem" in found) {
    return fail(io, { message: found.problem })
  }
  const projectsDir = path.join(found.resolved, "projects")
  const { project } = options
  // on a terminal, a table's rows are printed as they become certain (fixed widths)
  const terminal = io.isTTY && !options.json ? terminalTable(io) : undefined
  const kept = keptTable(homeOf(io).cache, projectsDir, options, terminal !== undefined)
  const listing = PlainListing.sessionsListing(found.resolved, {
    project,
    followSymlinks: options.followSymlinks,
    cacheDir: homeOf(io).cache,
    limit: options.limit,
    keeps: kept?.keeps,
    build: KeptReport.BUILD,
    onRows: terminal?.onRows
  })
  if (listing.kept === true && kept?.output !== undefined) {
    await io.stdout(`${kept.output}\n`)
    return 0
  }
  await terminal?.written()
  const { digest, failure, rows, skipped } = listing
  for (const item of skipped) io.stderr(`${ListingWarnings.skippedWarning(item)}\n`)
  if (failure !== undefined) {
    const description = failureWords(projectsDir, project, failure)
    return fail(io, { _tag: "ClaudeProjectsError", description, cause: failure.cause })
  }
  const output = terminal !== undefined && rows.length > 0
    ? terminal.printed()
    : options.json
    ? format.json(rows)
    : rows.length === 0
    ? `no sessions ${listingPlace(projectsDir, project, false)}`
    : sessionsTable(rows, { sizes: true })
  if (terminal === undefined || rows.length === 0) await io.stdout(`${output}\n`)
  // the table, kept for the walk's digest while nothing was left out (`PlainListing.listingDigest`)
  if (kept !== undefined && digest !== undefined && skipped.length === 0 && rows.length > 0) {
    KeptReport.keepOutput(kept.file, digest, kept.request, output)
  }
  return 0
}

/**
 * The table `acx sessions` prints on a terminal, row by row as the listing hands them on: the
 * heading with the first rows, fixed widths (`terminalRows`). `printed` is the text so far
 * (without the final newline); `written` resolves when it is handed over.
 */
const terminalTable = (io: CommandIo) => {
  const lines: Array<string> = []
  let writing: Promise<void> = Promise.resolve()
  return {
    onRows: (rows: ReadonlyArray<ListingRows.ListedSession>) => {
      const text = terminalRows(rows)
      const head = lines.length === 0 ? `${terminalHeading()}\n` : ""
      if (lines.length === 0) lines.push(terminalHeading())
      lines.push(text)
      // writes are handed over in order; the last one is awaited (`written`)
      writing = io.stdout(`${head}${text}\n`)
    },
    written: () => writing,
    printed: () => lines.join("\n")
  }
}

interface KeptTable {
  readonly file: string
  readonly request: string
  /** The kept table, once `keeps` found it. */
  output: string | undefined
  readonly keeps: (digest: string) => boolean
}

/**
 * The table `acx sessions` keeps (not `--json`: its rows name each project by its working
 * directory's repository, which the walk does not see): its file, what it is kept for (the build,
 * the project, the limit, the time zone its times are printed in, whether it goes to a terminal),
 * and the check the listing asks
 * after its walk, which loads the kept table when its digest is the walk's.
 */
const keptTable = (cacheDir: string, projectsDir: string, options: SessionsOptions, terminal: boolean) => {
  if (options.json) return undefined
  const request = JSON.stringify([
    "sessions",
    KeptReport.BUILD,
    options.project ?? null,
    options.limit ?? null,
    StoreStatsCache.zone(),
    // a terminal's table has fixed widths
    terminal
  ])
  const kept: KeptTable = {
    file: KeptReport.summaryFileOf(cacheDir, projectsDir, request),
    request,
    output: undefined,
    keeps: (digest) => (kept.output = KeptReport.keptOutput(kept.file, digest, request)) !== undefined
  }
  return kept
}
