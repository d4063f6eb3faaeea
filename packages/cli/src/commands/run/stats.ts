/**
 * What `acx stats` does (its options: `../stats.ts`): the statistics (`@acx/claude-code/SessionStats`,
 * which the web page shares), and their table and JSON.
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as SessionStats from "@acx/claude-code/SessionStats"
import * as StoreStats from "@acx/claude-code/StoreStats"
import * as StatsFold from "@acx/convert/StatsFold"
import * as StatsReport from "@acx/convert/StatsReport"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliError from "../../CliError.js"
import * as format from "../../internal/format.js"
import { listingPlace, malformedWarning, projectsLayer } from "../../internal/source.js"
import { openStore, storeProjects } from "../../internal/storeSource.js"
import type { StatsArgs } from "../args/stats.js"

const firstKey = (record: Readonly<Record<string, unknown>>): string | undefined => Object.keys(record)[0]

const top = (record: Readonly<Record<string, number>>, limit: number): string => {
  const sorted = Object.entries(record).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  if (sorted.length === 0) return "-"
  const shown = sorted.slice(0, limit).map(([name, n]) => `${name} ${n}`).join(", ")
  return sorted.length > limit ? `${shown}, … (${sorted.length - limit} more)` : shown
}

const HEADINGS: Record<StatsReport.GroupBy, string> = {
  session: "SESSION",
  day: "DAY",
  week: "WEEK OF",
  month: "MONTH",
  model: "MODEL",
  project: "PROJECT"
}

const tokenCells = (tokens: StatsReport.Tokens): Array<string> => [
  format.count(tokens.input),
  format.count(tokens.output),
  format.count(tokens.cacheWrite),
  format.count(tokens.cacheRead),
  format.count(tokens.total)
]

const pad2 = (n: number) => String(n).padStart(2, "0")
const localDay = (ms: number | undefined): string => {
  if (ms === undefined) return "-"
  const d = new Date(ms)
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`
}

/**
 * The table (a row per group; a row with several models is followed by one sub-row per model)
 * and the totals block.
 *
 * @since 0.1.0
 * @category rendering
 */
export const statsReport = (result: SessionStats.StatsResult): string => {
  const { report } = result
  const by = report.by
  const session = by === "session"
  const columns: Array<format.Column> = [
    { title: HEADINGS[by] },
    ...(session ? [{ title: "DATE" }] : [{ title: "SESSIONS", align: "right" as const }]),
    { title: "INPUT", align: "right" },
    { title: "OUTPUT", align: "right" },
    { title: "CACHE W", align: "right" },
    { title: "CACHE R", align: "right" },
    { title: "TOTAL TOK", align: "right" },
    { title: "COST", align: "right" },
    ...(by === "model"
      ? []
      : [{ title: "ACTIVE", align: "right" as const }, { title: "SPAN", align: "right" as const }]),
    ...(by === "model" ? [] : [{ title: "MODEL" }]),
    ...(session ? [{ title: "PROJECT" }] : [])
  ]
  const lines: Array<Array<string>> = []
  for (const row of report.rows) {
    const models = Object.keys(row.models)
    const cost = row.unpriced.length > 0 && row.costUSD === 0 ? "unpriced" : format.usd(row.costUSD) +
      (row.unpriced.length > 0 ? "+?" : "")
    lines.push([
      session ? row.key.slice(0, 8) : row.key,
      ...(session ? [localDay(row.firstMs)] : [String(row.sessions)]),
      ...tokenCells(row.tokens),
      cost,
      ...(by === "model" ? [] : [format.duration(row.activeMs), format.duration(row.spanMs)]),
      ...(by === "model"
        ? []
        : [models.length === 1 ? firstKey(row.models)! : models.length === 0 ? "-" : `${models.length} models`]),
      ...(session ? [format.clip(row.projectKey ?? "", 40)] : [])
    ])
    if (by === "model" || models.length < 2) continue
    for (const model of models) {
      const usage = row.models[model]!
      lines.push([
        "",
        "",
        ...tokenCells(usage.tokens),
        format.usd(usage.costUSD),
        "",
        "",
        `└ ${model}`,
        ...(session ? [""] : [])
      ])
    }
  }
  const total = report.total
  const priced = Object.entries(total.models).filter(([, usage]) => usage.costUSD !== null)
    .sort((a, b) => (b[1].costUSD ?? 0) - (a[1].costUSD ?? 0))
  const t = total.tokens
  const summary = [
    `sessions     ${total.sessions}`,
    `messages     ${total.messages.user} user, ${total.messages.assistant} assistant, ${total.messages.toolResults} tool results, ${total.messages.meta} meta`,
    `tool calls   ${top(total.toolCalls, 8)}`,
    `tokens       ${format.count(t.total)} total: ${format.count(t.input)} input, ${format.count(t.output)} output, ${
      format.count(t.cacheWrite)
    } cache write (${format.count(t.cacheWrite5m)} 5m, ${format.count(t.cacheWrite1h)} 1h), ${
      format.count(t.cacheRead)
    } cache read`,
    `cost         ${format.usd(total.costUSD)}${total.unpriced.length > 0 ? " + unpriced models" : ""}`,
    ...priced.map(([model, usage]) =>
      `  ${model.padEnd(28)} ${format.usd(usage.costUSD).padStart(12)}  ${format.count(usage.tokens.total)} tokens`
    ),
    ...total.unpriced.map((model) =>
      `  ${model.padEnd(28)} ${"unpriced".padStart(12)}  ${
        format.count(total.models[model]!.tokens.total)
      } tokens (no price for it: add it to $ACX_HOME/pricing.json)`
    ),
    `active time  ${format.duration(total.activeMs)} (gaps over ${
      StatsFold.IDLE_MS / 60_000
    } min left out; sessions at the same time each count)`,
    `wall span    ${format.duration(total.spanMs)}${
      total.firstMs !== undefined ? ` (${localDay(total.firstMs)} to ${localDay(total.lastMs)})` : ""
    }`,
    `subagents    ${total.subagents}`,
    `compactions  ${total.compactions}`,
    `prices       ${result.pricing.source}, ${result.pricing.date}`
  ]
  return `${format.table(columns, lines)}\n\n${summary.join("\n")}`
}

// The folds of the config directory's transcripts, or (`--from`) of a store's, cached per
// session (`StoreStats`, the same fold: the same report for the same entries), and the
// `ClaudeProjects` they came from (where "no sessions …" looked).
const folded = ({ configDir, followSymlinks, from, project }: StatsArgs) =>
  Option.match(from, {
    onNone: () =>
      Effect.gen(function*() {
        const projects = yield* ClaudeProjects.ClaudeProjects
        return { projects, folds: yield* SessionStats.foldStats(projects, Option.getOrUndefined(project)) }
      }).pipe(Effect.provide(projectsLayer(configDir, { followSymlinks }))),
    onSome: (spec) =>
      Effect.gen(function*() {
        const opened = yield* openStore(spec)
        const projects = storeProjects(opened)
        // a project the store has no session of is said as a listing says it
        if (Option.isSome(project)) yield* projects.listSessionFiles(project.value)
        const folds = yield* StoreStats.foldStats({
          store: opened.store,
          location: opened.display,
          projectKey: Option.getOrUndefined(project)
        })
        return { projects, folds }
      })
  })

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = (args: StatsArgs) =>
  Effect.gen(function*() {
    const { by, json, project, since, until } = args
    const parsed = StatsReport.parseDayRange(Option.getOrUndefined(since), Option.getOrUndefined(until))
    if (parsed._tag !== "Range") {
      return yield* CliError.invalidArgument(StatsReport.dayRangeMessage(parsed, (bound) => `--${bound}`))
    }
    const range = parsed.range
    const { folds, projects } = yield* folded(args)
    const result = SessionStats.reportStats(folds, by, range)
    for (const skipped of result.run.skipped) {
      yield* Console.error(`acx: warning: skipped ${skipped.file}: ${skipped.reason}`)
    }
    if (result.run.cacheWarning !== undefined) yield* Console.error(`acx: warning: ${result.run.cacheWarning}`)
    if (json) return yield* Console.log(format.json(SessionStats.statsJson(result)))
    if (result.report.rows.length === 0) {
      const where = range.since !== undefined || range.until !== undefined ? " in that date range" : ""
      return yield* Console.log(`no sessions${where} ${listingPlace(projects, project)}`)
    }
    yield* Console.log(statsReport(result))
    const warning = malformedWarning(
      result.run.folds.map((item) => ({
        file: item.file,
        lines: item.fold.malformed,
        firstOffset: result.run.malformedAt[item.file]
      }))
    )
    if (warning !== undefined) yield* Console.error(warning)
  }).pipe(Effect.scoped)
