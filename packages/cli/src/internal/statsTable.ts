/**
 * `acx stats`' table and totals block. Loads without Effect: the fast read path prints it too.
 */
import type * as StatsOutput from "@acx/claude-code/StatsOutput"
import * as StatsFold from "@acx/convert/StatsFold"
import type * as StatsReport from "@acx/convert/StatsReport"
import * as TerminalText from "@acx/convert/TerminalText"
import * as format from "./format.js"

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
  project: "PROJECT",
  machine: "MACHINE",
  user: "USER"
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
 */
export const statsReport = (result: StatsOutput.StatsResult): string => {
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
  return `${format.table(columns, lines)}\n\n${TerminalText.lines(summary.join("\n"))}`
}
