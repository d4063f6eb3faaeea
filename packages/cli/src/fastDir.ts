/**
 * The fast path over a config directory (`dist/fast-dir.cjs`): `acx stats [--json] [--by GROUP]
 * [--since D] [--until D] [--config-dir DIR]` and `acx sessions [--json] [--config-dir DIR]`
 * answered without the CLI framework or Effect, when the answer is certain to be the full path's.
 * The bin hands such a command line (without `--from`) to {@link main} first. It answers only when
 *
 * - the command line is exactly that shape (any other option, a repeated one, `--opt=value`:
 *   not this path's to judge);
 * - the config directory is a directory and its tree is plain (`PlainListing`: no symbolic
 *   link, no path the full listing would leave out with a warning), and lists a session;
 * - `stats`: the prices load (`StatsPricing.load`, the full path's loader: the built-in table
 *   with a valid `$ACX_HOME/pricing.json` applied; a refused file is the full path's error), the
 *   day range parses, and the fold skipped no file, met no malformed line and wrote its cache;
 * - `sessions`: `SessionIndex`' cache holds every transcript at its size and mtime, and no other
 *   (the full path would read and write nothing).
 *
 * `stats` folds what is not cached with the full path's own function
 * (`TranscriptFolds.foldTranscripts`: worker threads, the same cache file), so a cold run here
 * leaves the cache the full path would have left. Anything else, and any error, hands the command
 * back (`false`) before anything is printed, and the full CLI runs: it is the reference. What is
 * printed is computed by the full path's parts (`StatsOutput`, `statsTable`, `ListingRows`,
 * `sessionsTable`, `format`). A test compares both paths' output byte for byte
 * (docs/design.md, "Reading commands start fast").
 *
 * @since 0.4.0
 */
import * as ListingRows from "@acx/claude-code/ListingRows"
import * as PlainListing from "@acx/claude-code/PlainListing"
import * as ProjectOrigin from "@acx/claude-code/ProjectOrigin"
import * as SessionIndexCache from "@acx/claude-code/SessionIndexCache"
import * as StatsOutput from "@acx/claude-code/StatsOutput"
import * as TranscriptFolds from "@acx/claude-code/TranscriptFolds"
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as StatsReport from "@acx/convert/StatsReport"
import * as AcxHome from "@acx/environment/AcxHome"
import * as fs from "node:fs"
import * as path from "node:path"
import { configDirOf } from "./internal/configDir.js"
import { parseArgs } from "./internal/fastArgs.js"
import { answer } from "./internal/fastOutput.js"
import { pricingTable } from "./internal/fastStats.js"
import * as format from "./internal/format.js"
import { sessionsTable } from "./internal/sessionsTable.js"
import * as StatsSummary from "./internal/statsSummary.js"
import { statsReport } from "./internal/statsTable.js"

/**
 * A command line the fast path takes over a config directory.
 *
 * @since 0.4.0
 * @category parsing
 */
export interface DirRequest {
  readonly command: "stats" | "sessions"
  readonly configDir: string | undefined
  readonly json: boolean
  readonly by: StatsReport.GroupBy
  readonly since: string | undefined
  readonly until: string | undefined
}

// The groupings this path answers: sums of the cached folds, which depend on nothing but the
// files (a grouping added later, one that depends on the clock or other data, is the full path's
// until this path is shown to print it). Not `project`: a project is its git remote
// (`StatsOrigins`, read from each session's repository), which the files' folds do not hold.
const FOLD_GROUPINGS: ReadonlyArray<string> = ["session", "day", "week", "month", "model"]

/**
 * The request `argv` (`process.argv`) makes, or `undefined` when it is not exactly of a shape
 * this path takes (see the module doc).
 *
 * @since 0.4.0
 * @category parsing
 */
export const parseRequest = (argv: ReadonlyArray<string>): DirRequest | undefined => {
  const command = argv[2]
  if (command !== "stats" && command !== "sessions") return undefined
  const options = parseArgs(
    argv.slice(3),
    command === "stats"
      ? {
        values: { "--config-dir": "configDir", "--by": "by", "--since": "since", "--until": "until" },
        flags: { "--json": "json" }
      }
      : { values: { "--config-dir": "configDir" }, flags: { "--json": "json" } }
  )
  if (options === undefined) return undefined
  const text = (name: string) => typeof options[name] === "string" ? options[name] : undefined
  const by = text("by") ?? "session"
  if (!FOLD_GROUPINGS.includes(by)) return undefined
  return {
    command,
    configDir: text("configDir"),
    json: options["json"] === true,
    by: by as StatsReport.GroupBy,
    since: text("since"),
    until: text("until")
  }
}

// The config directory, when it is one (the full path words every other case).
const configDirectory = (option: string | undefined): string | undefined => {
  const { resolved } = configDirOf(option)
  try {
    return fs.statSync(resolved).isDirectory() ? resolved : undefined
  } catch {
    return undefined
  }
}

/**
 * What `acx stats` prints for `request` (without the final newline), or `undefined` when this
 * path cannot be sure of it. Folds (and caches) what is not cached, as the full path would.
 *
 * @since 0.4.0
 * @category statistics
 */
export const statsOutput = async (request: DirRequest): Promise<string | undefined> => {
  const parsed = StatsReport.parseDayRange(request.since, request.until)
  const configDir = configDirectory(request.configDir)
  const pricing = pricingTable(AcxHome.acxHome())
  if (parsed._tag !== "Range" || configDir === undefined || pricing === undefined) return undefined
  const files = PlainListing.listTranscripts(configDir)
  if (files === undefined || files.length === 0) return undefined
  const projectsDir = path.join(configDir, "projects")
  const scope = { scope: projectsDir, complete: true }
  // a warm run's report, kept while nothing it read has changed (internal/statsSummary.ts)
  const summaryFile = StatsSummary.summaryFileOf(AcxHome.paths().cache, projectsDir)
  const key = JSON.stringify([request.by, request.json, request.since ?? null, request.until ?? null])
  const before = TranscriptFolds.stateDigest(files, scope, { pricing })
  const kept = before === undefined ? undefined : StatsSummary.keptOutput(summaryFile, before, key)
  if (kept !== undefined) return kept
  const run = await TranscriptFolds.foldTranscripts(files, scope, { pricing })
  if (run.skipped.length > 0 || run.cacheWarning !== undefined || run.folds.some((item) => item.fold.malformed > 0)) {
    return undefined
  }
  const result = StatsOutput.reportStats({ pricing, run }, request.by, parsed.range)
  const output = request.json
    ? format.json(StatsOutput.statsJson(result))
    : result.report.rows.length === 0
    ? undefined
    : statsReport(result)
  if (output !== undefined && run.files.folded === 0 && run.files.appended === 0 && before !== undefined) {
    // what a run that folds nothing prints, as long as the state it read stays as it was
    if (TranscriptFolds.stateDigest(files, scope, { pricing }) === before) {
      StatsSummary.keepOutput(summaryFile, before, key, output)
    }
  }
  return output
}

/**
 * What `acx sessions` prints for `request` (without the final newline), or `undefined` when this
 * path cannot be sure of it.
 *
 * @since 0.4.0
 * @category listing
 */
export const sessionsOutput = (request: DirRequest): string | undefined => {
  const configDir = configDirectory(request.configDir)
  if (configDir === undefined) return undefined
  const sessions = PlainListing.listSessions(configDir)
  if (sessions === undefined || sessions.length === 0) return undefined
  const projectsDir = path.join(configDir, "projects")
  const cacheFile = SessionIndexCache.cacheFileFor(AcxHome.paths().cache, projectsDir)
  const cached = SessionIndexCache.cachedEntries(cacheFile, projectsDir, sessions)
  if (cached === undefined) return undefined
  const listed = sessions.map((session, i) => ({ ...session, ...SessionMetadata.metadataOf(cached[i]!.state) }))
  // this machine's, each project from its working directory (as the full path's listing)
  const list = ListingRows.rows(listed, ProjectOrigin.originsOfSessions(listed))
  return request.json ? format.json(list) : sessionsTable(list, { sizes: true })
}

/**
 * Answers `argv` (`process.argv`: node, the bin, `stats` or `sessions`, …) when it can; `false`
 * hands it back to the full CLI. `ACX_FAST_REPORT=1` says on stderr that this path answered.
 *
 * @since 0.4.0
 * @category running
 */
export const main = async (argv: ReadonlyArray<string>, env: NodeJS.ProcessEnv = process.env): Promise<boolean> => {
  let output: string | undefined
  try {
    const request = parseRequest(argv)
    output = request === undefined
      ? undefined
      : request.command === "stats"
      ? await statsOutput(request)
      : sessionsOutput(request)
  } catch {
    output = undefined
  }
  return output === undefined ? false : answer(`${argv[2]} (config directory)`, output, env)
}
