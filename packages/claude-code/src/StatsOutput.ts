/**
 * The statistics' report and its `--json` document from folds already made, without Effect:
 * `SessionStats` (a config directory) and `StoreStats` (a store) fold, this groups and renders.
 * `SessionStats` re-exports every name here; the CLI's fast read path loads this module alone.
 *
 * @since 0.3.0
 */
import * as Pricing from "@acx/convert/Pricing"
import * as StatsReport from "@acx/convert/StatsReport"
import type * as TranscriptStats from "./TranscriptStats.js"

/**
 * What `acx stats` computed: the report, the pricing it used, how the files were read.
 *
 * @since 0.3.0
 * @category models
 */
export interface StatsResult {
  readonly report: StatsReport.Report
  readonly pricing: Pricing.PricingTable
  readonly range: StatsReport.DayRange
  readonly run: TranscriptStats.StatsRun
}

/**
 * Every transcript folded once, with the pricing it was priced with: group it several ways with
 * {@link reportStats} (the web page's costs draw days, projects and sessions from one fold).
 *
 * @since 0.3.0
 * @category models
 */
export interface StatsFolds {
  readonly pricing: Pricing.PricingTable
  readonly run: TranscriptStats.StatsRun
}

/**
 * The report of folded transcripts grouped `by`, within `range` (pure: no file is read).
 *
 * @since 0.3.0
 * @category statistics
 */
export const reportStats = (
  folds: StatsFolds,
  by: StatsReport.GroupBy,
  range: StatsReport.DayRange = {}
): StatsResult => ({
  report: StatsReport.report(folds.run.folds, by, range, folds.pricing),
  pricing: folds.pricing,
  range,
  run: folds.run
})

/**
 * The `--json` document's type: what {@link statsJson} returns.
 *
 * @since 0.3.0
 * @category models
 */
export type StatsJson = ReturnType<typeof statsJson>

/**
 * A report row as JSON: what {@link rowJson} returns.
 *
 * @since 0.7.0
 * @category models
 */
export type RowJson = StatsReport.Row & {
  readonly sessionId?: string
  readonly firstTimestamp: string | null
  readonly lastTimestamp: string | null
}

/**
 * A report row as JSON: the row, with its session id on session rows and ISO timestamps.
 *
 * @since 0.3.0
 * @category rendering
 */
export const rowJson = (by: StatsReport.GroupBy, row: StatsReport.Row): RowJson => {
  // assigned, not spread: `{ ...(cond ? { sessionId } : {}), ...row }` built each object in V8's
  // slow path (1 s of a cold `acx stats --json` at 20 000 sessions)
  const json: { [key: string]: unknown } = by === "session" ? { sessionId: row.key } : {}
  Object.assign(json, row)
  json["firstTimestamp"] = row.firstMs === undefined ? null : new Date(row.firstMs).toISOString()
  json["lastTimestamp"] = row.lastMs === undefined ? null : new Date(row.lastMs).toISOString()
  return json as unknown as RowJson
}

/**
 * The `--json` document: the rows and total, the day range and time zone, and the rates of
 * every model that appears (by the id they are listed under).
 *
 * @since 0.3.0
 * @category rendering
 */
export const statsJson = (result: StatsResult) => {
  const { pricing, report } = result
  const rates: Record<string, Pricing.ModelRates | null> = {}
  for (const model of Object.keys(report.total.models)) {
    rates[model] = Pricing.ratesFor(pricing, model) ?? null
  }
  return {
    by: report.by,
    since: result.range.since ?? null,
    until: result.range.until ?? null,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    pricing: { source: pricing.source, date: pricing.date, unit: "USD per million tokens", rates },
    rows: report.rows.map((row) => rowJson(report.by, row)),
    total: rowJson("day", report.total),
    skippedLines: report.malformed,
    malformed: result.run.folds.filter((item) => item.fold.malformed > 0).map((item) => ({
      file: item.file,
      lines: item.fold.malformed
    })),
    skippedFiles: result.run.skipped,
    read: { ...result.run.files, bytes: result.run.bytesRead, workers: result.run.workers }
  }
}
