/**
 * `acx stats --by block`'s table and its "now" line (the active window: cost, burn rate,
 * projection, time to reset, quota), which `--live` prints once per refresh when not on a
 * terminal. Loads without Effect.
 */
import type * as BlockStats from "@acx/claude-code/BlockStats"
import * as format from "./format.js"

const localTime = format.date

/** Local `HH:MM`, with the day when it is not `since`'s. */
const localEnd = (ms: number, since: number): string => {
  const full = localTime(ms)
  return full.slice(0, 10) === localTime(since).slice(0, 10) ? full.slice(11) : full
}

const percent = (value: number): string => `${Math.round(value * 10) / 10}%`

const quotaCell = (row: BlockStats.BlockRow): string => {
  const quota = row.quota
  if (quota === undefined) return "-"
  const span = quota.count === 1
    ? percent(quota.last.usedPercentage)
    : `${percent(quota.first.usedPercentage)}→${percent(quota.last.usedPercentage)}`
  return quota.peakPercentage > quota.last.usedPercentage ? `${span} (peak ${percent(quota.peakPercentage)})` : span
}

const costCell = (row: BlockStats.BlockRow): string =>
  row.unpriced.length > 0 && row.costUSD === 0
    ? "unpriced"
    : format.usd(row.costUSD) + (row.unpriced.length > 0 ? "+?" : "")

const modelsCell = (row: BlockStats.BlockRow): string =>
  row.models.length === 0 ? "-" : row.models.length === 1 ? row.models[0]! : `${row.models.length} models`

/** The windows' table, gaps as rows of their own, and the "now" line under it. */
export const blocksTable = (report: BlockStats.BlockReport): string => {
  const columns: Array<format.Column> = [
    { title: "START" },
    { title: "END" },
    { title: "STATUS" },
    { title: "MESSAGES", align: "right" },
    { title: "TOTAL TOK", align: "right" },
    { title: "COST", align: "right" },
    { title: "$/H", align: "right" },
    { title: "MODEL" },
    { title: "QUOTA 5H" }
  ]
  const lines = report.rows.map((row) =>
    row.kind === "gap"
      ? [
        localTime(row.startMs),
        localEnd(row.endMs, row.startMs),
        `gap ${format.duration(row.endMs - row.startMs)}`,
        "",
        "",
        "",
        "",
        "",
        ""
      ]
      : [
        localTime(row.startMs),
        localEnd(row.endMs, row.startMs),
        row.active ? "ACTIVE" : "",
        String(row.messages),
        format.count(row.tokens.total),
        costCell(row),
        row.burn === undefined ? "-" : format.usd(row.burn.costPerHour),
        modelsCell(row),
        quotaCell(row)
      ]
  )
  return `${format.table(columns, lines)}\n\n${nowLine(report)}`
}

/**
 * One line on the window `now` falls in: its cost, burn rate, projection to its end, the time
 * to its reset and its last quota reading; or that none is open.
 */
export const nowLine = (report: BlockStats.BlockReport): string => {
  const active = report.rows.find((row) => row.kind === "block" && row.active)
  const at = localTime(report.nowMs).slice(11)
  if (active === undefined) {
    const last = report.rows.filter((row) => row.kind === "block").at(-1)
    return `${at} no active window${last === undefined ? "" : ` (the last ended ${localTime(last.endMs)})`}`
  }
  const parts = [
    `${at} window ${localTime(active.startMs).slice(11)}–${localEnd(active.endMs, active.startMs)}`,
    `${costCell(active)} so far`,
    `${format.count(active.tokens.total)} tokens`,
    active.burn === undefined ? "burn rate -" : `${format.usd(active.burn.costPerHour)}/h`,
    ...(active.projection === undefined ? [] : [`projected ${format.usd(active.projection.costUSD)}`]),
    `resets in ${format.duration(active.endMs - report.nowMs)}`,
    ...(active.quota === undefined ? [] : [`quota ${quotaCell(active)}`])
  ]
  return parts.join(" · ")
}
