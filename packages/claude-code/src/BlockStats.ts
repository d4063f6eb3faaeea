/**
 * `acx stats --by block`: the 5-hour billing windows of folded transcripts
 * (`@acx/convert/BillingWindows`), each with its cost, tokens, burn rate and models, and the
 * quota readings the statusline recorded in it (`@acx/convert/QuotaReadings`). The report is
 * pure (folds, readings and the time in; rows out); {@link readReadings} reads the readings file.
 * Without Effect, like `StatsOutput`: the live view redraws it every tick.
 *
 * @since 0.3.0
 */
import * as BillingWindows from "@acx/convert/BillingWindows"
import * as Pricing from "@acx/convert/Pricing"
import * as QuotaReadings from "@acx/convert/QuotaReadings"
import * as StatsFold from "@acx/convert/StatsFold"
import type * as StatsReport from "@acx/convert/StatsReport"
import * as fs from "node:fs"
import type * as StatsOutput from "./StatsOutput.js"

/**
 * One row: a window, or a gap between two.
 *
 * @since 0.3.0
 * @category models
 */
export interface BlockRow {
  readonly kind: "block" | "gap"
  readonly startMs: number
  /** Exclusive: a window's is its start + 5 h (its reset), a gap's the next window's start. */
  readonly endMs: number
  /** The window `now` falls in. */
  readonly active: boolean
  readonly firstMs: number | undefined
  readonly lastMs: number | undefined
  readonly messages: number
  readonly tokens: StatsReport.Tokens
  /** Dollars of the priced models. */
  readonly costUSD: number
  readonly unpriced: ReadonlyArray<string>
  readonly models: ReadonlyArray<string>
  readonly burn: BillingWindows.Burn | undefined
  /** For the active window: its figures at its end at the current burn rate, and the time left. */
  readonly projection: BillingWindows.Projection | undefined
  /** The 5-hour quota readings observed in the window. */
  readonly quota: QuotaReadings.Summary | undefined
}

/**
 * The windows (with the gaps between them) and what they were computed at.
 *
 * @since 0.3.0
 * @category models
 */
export interface BlockReport {
  readonly rows: ReadonlyArray<BlockRow>
  readonly nowMs: number
  /** Readings in the readings file (any window, any time). */
  readonly readings: number
}

const tokensOf = (cell: StatsFold.ModelCell): StatsReport.Tokens => ({
  input: cell.input,
  output: cell.output,
  cacheRead: cell.cacheRead,
  cacheWrite: cell.cacheWrite5m + cell.cacheWrite1h,
  cacheWrite5m: cell.cacheWrite5m,
  cacheWrite1h: cell.cacheWrite1h,
  total: BillingWindows.tokensOf(cell)
})

const noTokens = tokensOf(StatsFold.emptyModelCell())

const blockRow = (
  block: BillingWindows.Block,
  pricing: Pricing.PricingTable,
  nowMs: number,
  readings: ReadonlyArray<QuotaReadings.Reading>
): BlockRow => {
  const models = Object.keys(block.models)
  const unpriced = models.filter((model) =>
    Pricing.ratesFor(pricing, model) === undefined && block.models[model]!.messages > 0
  )
  return {
    kind: "block",
    startMs: block.startMs,
    endMs: block.endMs,
    active: BillingWindows.isActive(block, nowMs),
    firstMs: block.firstMs,
    lastMs: block.lastMs,
    messages: block.total.messages,
    tokens: tokensOf(block.total),
    costUSD: block.total.costUSD,
    unpriced,
    models,
    burn: BillingWindows.burnRate(block),
    projection: BillingWindows.projection(block, nowMs),
    quota: QuotaReadings.summarize(readings, { window: "five_hour", startMs: block.startMs, endMs: block.endMs })
  }
}

const gapRow = (gap: BillingWindows.Gap): BlockRow => ({
  kind: "gap",
  startMs: gap.startMs,
  endMs: gap.endMs,
  active: false,
  firstMs: undefined,
  lastMs: undefined,
  messages: 0,
  tokens: noTokens,
  costUSD: 0,
  unpriced: [],
  models: [],
  burn: undefined,
  projection: undefined,
  quota: undefined
})

const inRange = (day: string, range: StatsReport.DayRange): boolean =>
  (range.since === undefined || day >= range.since) && (range.until === undefined || day <= range.until)

/**
 * The windows of the folded transcripts whose start falls on a local day of `range`, oldest
 * first, with the gaps between them, at `nowMs`, with the quota `readings` in each.
 *
 * @since 0.3.0
 * @category reports
 */
export const blockReport = (
  folds: StatsOutput.StatsFolds,
  options: {
    readonly range: StatsReport.DayRange
    readonly nowMs: number
    readonly readings: ReadonlyArray<QuotaReadings.Reading>
  }
): BlockReport => {
  const dayOf = StatsFold.localDayOf()
  const blocks = BillingWindows.blocksOf(BillingWindows.mergeHours(folds.run.folds.map((item) => item.fold)))
    .filter((block) => inRange(dayOf(block.startMs), options.range))
  return {
    rows: BillingWindows.withGaps(blocks).map((span) =>
      span._tag === "Gap" ? gapRow(span) : blockRow(span, folds.pricing, options.nowMs, options.readings)
    ),
    nowMs: options.nowMs,
    readings: options.readings.length
  }
}

const iso = (ms: number | undefined): string | null => ms === undefined ? null : new Date(ms).toISOString()

/**
 * The `--json` document of a block report: ISO times, `null` for what a row has not.
 *
 * @since 0.3.0
 * @category rendering
 */
export const blockJson = (report: BlockReport, pricing: Pricing.PricingTable) => ({
  by: "block" as const,
  now: iso(report.nowMs),
  windowHours: BillingWindows.WINDOW_MS / StatsFold.HOUR_MS,
  timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  pricing: { source: pricing.source, date: pricing.date },
  quotaReadings: report.readings,
  rows: report.rows.map((row) => ({
    kind: row.kind,
    start: iso(row.startMs),
    end: iso(row.endMs),
    active: row.active,
    firstMessage: iso(row.firstMs),
    lastMessage: iso(row.lastMs),
    messages: row.messages,
    tokens: row.tokens,
    costUSD: row.costUSD,
    unpriced: row.unpriced,
    models: row.models,
    burnRate: row.burn ?? null,
    projection: row.projection ?? null,
    quota: row.quota === undefined ? null : {
      readings: row.quota.count,
      firstPercentage: row.quota.first.usedPercentage,
      lastPercentage: row.quota.last.usedPercentage,
      peakPercentage: row.quota.peakPercentage,
      resetsAt: new Date(row.quota.last.resetsAt * 1000).toISOString()
    }
  }))
})

/**
 * The most of the readings file read (its end): years of deduplicated readings are far less.
 *
 * @since 0.3.0
 * @category constants
 */
export const MAX_READINGS_BYTES = 16 * 1024 * 1024

/**
 * The readings of the readings file (`$ACX_HOME/quota/readings.jsonl`), or none when there is
 * none; a file that cannot be read (or is no regular file: a FIFO would block) gives none and a
 * warning. Of a file over {@link MAX_READINGS_BYTES}, its end.
 *
 * @since 0.3.0
 * @category reading
 */
export const readReadings = (
  file: string
): { readonly readings: ReadonlyArray<QuotaReadings.Reading>; readonly warning: string | undefined } => {
  let fd: number | undefined
  try {
    const stat = fs.lstatSync(file)
    if (!stat.isFile()) return { readings: [], warning: `quota readings not read (${file}): not a regular file` }
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0))
    const length = Math.min(stat.size, MAX_READINGS_BYTES)
    const buffer = Buffer.alloc(length)
    const read = fs.readSync(fd, buffer, 0, length, stat.size - length)
    return { readings: QuotaReadings.decodeText(buffer.toString("utf8", 0, read)), warning: undefined }
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") return { readings: [], warning: undefined }
    return {
      readings: [],
      warning: `quota readings not read (${file}): ${cause instanceof Error ? cause.message : String(cause)}`
    }
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}
