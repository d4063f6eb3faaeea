/**
 * The costs page's data as pure functions, and the JSON of `GET /api/costs`: the day report
 * (exactly the document `acx stats --by day --json` prints for the same range), each day's
 * dollars and tokens by model for the stacked charts, projects named from their `cwd`, and the
 * sessions that cost most with the unusual ones flagged. Every figure comes from one fold of the
 * transcripts (each API message once) grouped several ways.
 *
 * Nothing here reads a file: the browser bundles {@link stack} and the formatters too.
 *
 * @since 0.1.0
 */
import type * as BlockStats from "@acx/claude-code/BlockStats"
import type * as SessionStats from "@acx/claude-code/SessionStats"
import * as Money from "@acx/convert/Money"
import type * as StatsReport from "@acx/convert/StatsReport"
import * as SessionList from "./SessionList.js"
import type * as UiApi from "./UiApi.js"

/**
 * How many sessions the top sessions table lists.
 *
 * @since 0.1.0
 * @category constants
 */
export const TOP_SESSIONS = 20

/**
 * The most days the charts fill in from the range's bounds; a wider range is drawn over the
 * days that have usage (a range from 1970 is not 20 000 empty bars).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_FILLED_DAYS = 3660

/**
 * Each day's figures by model, for the stacked charts: `usd[m][d]` and `tokens[m][d]` are model
 * `models[m]`'s dollars and tokens on `days[d]`. Every day between the first and the last is
 * there (0 without usage); entries without a timestamp are left out (the day table lists them).
 *
 * @since 0.1.0
 * @category models
 */
export interface DaySeries {
  readonly days: ReadonlyArray<string>
  /** Most dollars first, then most tokens, then by name. */
  readonly models: ReadonlyArray<string>
  /** A model without a price counts 0 dollars (its tokens still count). */
  readonly usd: ReadonlyArray<ReadonlyArray<number>>
  readonly tokens: ReadonlyArray<ReadonlyArray<number>>
}

/**
 * A project's part of the range.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProjectCost {
  /**
   * The project across machines (`StatsReport.Origin.project`: its git remote, else its path);
   * the project key for a session of a store that recorded no origin.
   */
  readonly projectKey: string
  /** The project keys (Claude Code's path names) it gathers. */
  readonly projectKeys: ReadonlyArray<string>
  /** The remote (`github.com/org/repo`), else the last segment of its path or newest session's `cwd`. */
  readonly name: string
  readonly cwd: string | null
  readonly sessions: number
  readonly tokens: StatsReport.Tokens
  readonly costUSD: number
  readonly unpriced: ReadonlyArray<string>
}

/**
 * A machine's or OS user's part of the range.
 *
 * @since 0.3.0
 * @category models
 */
export interface OriginCost {
  /** The machine (or user) name; `unknown` for sessions of a store that recorded none. */
  readonly key: string
  readonly sessions: number
  readonly tokens: StatsReport.Tokens
  readonly costUSD: number
  readonly unpriced: ReadonlyArray<string>
}

/**
 * The rows of a report grouped by machine or user, most dollars first (then most tokens, then by
 * name).
 *
 * @since 0.3.0
 * @category rows
 */
export const originCosts = (report: StatsReport.Report): Array<OriginCost> =>
  report.rows.map((row) => ({
    key: row.key,
    sessions: row.sessions,
    tokens: row.tokens,
    costUSD: row.costUSD,
    unpriced: row.unpriced
  })).sort((a, b) => b.costUSD - a.costUSD || b.tokens.total - a.tokens.total || a.key.localeCompare(b.key))

/**
 * A session among those that cost most in the range.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionCost extends UiApi.SessionFigure {
  readonly sessionId: string
  readonly projectKey: string
  readonly project: string
  /** Its title, else its first prompt (secrets masked unless the request said `mask=0`). */
  readonly title: string | null
  /** ISO 8601: its first entry in the range. */
  readonly firstTimestamp: string | null
  /** Costs far more than its project's usual session, over all time (as the sessions page). */
  readonly outlier: boolean
}

/**
 * `GET /api/costs?since=&until=`.
 *
 * @since 0.1.0
 * @category models
 */
export interface CostsResponse {
  /** Exactly `acx stats --by day --since … --until … --json` (range, pricing, rows, total). */
  readonly day: SessionStats.StatsJson
  readonly series: DaySeries
  /** By project across machines, most dollars first. */
  readonly projects: ReadonlyArray<ProjectCost>
  /** By machine, most dollars first. */
  readonly machines: ReadonlyArray<OriginCost>
  /** By OS user, most dollars first. */
  readonly users: ReadonlyArray<OriginCost>
  /** The {@link TOP_SESSIONS} that cost most, most first. */
  readonly sessions: ReadonlyArray<SessionCost>
}

const DAY_MS = 86_400_000
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/

const dayMs = (day: string): number | undefined => {
  const match = DAY.exec(day)
  if (match === null) return undefined
  const date = new Date(0)
  date.setUTCFullYear(Number(match[1]), Number(match[2]) - 1, Number(match[3]))
  return date.getTime()
}

const dayOfMs = (ms: number): string => {
  const date = new Date(ms)
  const pad = (n: number, width = 2) => String(n).padStart(width, "0")
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`
}

/**
 * Every day from `from` to `to`, inclusive (`YYYY-MM-DD`); none when either is not a day or
 * `from` is after `to`.
 *
 * @since 0.1.0
 * @category days
 */
export const daysBetween = (from: string, to: string): Array<string> => {
  const start = dayMs(from)
  const end = dayMs(to)
  if (start === undefined || end === undefined) return []
  const days: Array<string> = []
  for (let ms = start; ms <= end; ms += DAY_MS) days.push(dayOfMs(ms))
  return days
}

/**
 * A day's noon as seconds since the epoch in UTC: the x value the charts draw a day at.
 *
 * @since 0.1.0
 * @category days
 */
export const daySeconds = (day: string): number => ((dayMs(day) ?? Number.NaN) + DAY_MS / 2) / 1000

const byCost = (
  totals: ReadonlyMap<string, { usd: number; tokens: number }>
) =>
(a: string, b: string): number =>
  totals.get(b)!.usd - totals.get(a)!.usd || totals.get(b)!.tokens - totals.get(a)!.tokens || a.localeCompare(b)

/**
 * The stacked charts' figures from a report grouped by day: every day from the range's `since`
 * (else the first day with usage) to its `until` (else the last), or only the days with usage
 * when that span passes {@link MAX_FILLED_DAYS}.
 *
 * @since 0.1.0
 * @category series
 */
export const daySeries = (rows: ReadonlyArray<StatsReport.Row>, range: StatsReport.DayRange): DaySeries => {
  const dated = rows.filter((row) => dayMs(row.key) !== undefined).sort((a, b) => a.key.localeCompare(b.key))
  if (dated.length === 0) return { days: [], models: [], usd: [], tokens: [] }
  const first = dated[0]!.key
  const last = dated[dated.length - 1]!.key
  const from = range.since !== undefined && range.since < first ? range.since : first
  const to = range.until !== undefined && range.until > last ? range.until : last
  const filled = (dayMs(to)! - dayMs(from)!) / DAY_MS < MAX_FILLED_DAYS
  const days = filled ? daysBetween(from, to) : daysBetween(first, last)
  const index = new Map(days.map((day, i) => [day, i]))
  const totals = new Map<string, { usd: number; tokens: number }>()
  for (const row of dated) {
    for (const [model, usage] of Object.entries(row.models)) {
      const total = totals.get(model) ?? { usd: 0, tokens: 0 }
      total.usd += usage.costUSD ?? 0
      total.tokens += usage.tokens.total
      totals.set(model, total)
    }
  }
  const models = [...totals.keys()].sort(byCost(totals))
  const usd = models.map(() => new Array<number>(days.length).fill(0))
  const tokens = models.map(() => new Array<number>(days.length).fill(0))
  for (const row of dated) {
    const d = index.get(row.key)!
    for (const [m, model] of models.entries()) {
      const usage = row.models[model]
      if (usage === undefined) continue
      usd[m]![d] = usage.costUSD ?? 0
      tokens[m]![d] = usage.tokens.total
    }
  }
  return { days, models, usd, tokens }
}

/**
 * Series stacked: row `m` is the sum of rows `0..m` at each point (a stacked chart draws row
 * `m`'s band between rows `m - 1` and `m`). Shorter rows count as 0 where they end.
 *
 * @since 0.1.0
 * @category series
 */
export const stack = (series: ReadonlyArray<ReadonlyArray<number>>): Array<Array<number>> => {
  const width = Math.max(0, ...series.map((row) => row.length))
  const sums = new Array<number>(width).fill(0)
  return series.map((row) =>
    sums.map((sum, i) => {
      const next = sum + (row[i] ?? 0)
      sums[i] = next
      return next
    })
  )
}

/**
 * Each project's part of a report grouped by project, named from the projects of the sessions
 * list (`SessionList.projectRows`), most dollars first (then tokens, then name).
 *
 * @since 0.1.0
 * @category rows
 */
export const projectCosts = (
  report: StatsReport.Report,
  projects: ReadonlyArray<UiApi.ProjectRow>
): Array<ProjectCost> => {
  const named = new Map(projects.map((project) => [project.projectKey, project]))
  return report.rows.map((row) => {
    const keys = row.projectKeys ?? [row.key]
    const project = named.get(keys[0]!)
    const path = row.key.startsWith("/")
    return {
      projectKey: row.key,
      projectKeys: keys,
      // a remote is its own name; a path (or a key) is named as the sessions list names it
      name: path ? SessionList.lastSegment(row.key) : named.has(row.key) ? project!.name : row.key,
      cwd: path ? row.key : project?.cwd ?? null,
      sessions: row.sessions,
      tokens: row.tokens,
      costUSD: row.costUSD,
      unpriced: row.unpriced
    }
  }).sort((a, b) => b.costUSD - a.costUSD || b.tokens.total - a.tokens.total || a.name.localeCompare(b.name))
}

/**
 * The `limit` sessions of `inRange` (a report grouped by session) that cost most, most first
 * (then most tokens, then by id); titled from the sessions list through `mask`; flagged as
 * outliers by `CostOutliers` over `allTime` (a report grouped by session without a range), the
 * rule of the sessions page, so a session flagged there is flagged here.
 *
 * @since 0.1.0
 * @category rows
 */
export const topSessions = (
  inRange: StatsReport.Report,
  allTime: StatsReport.Report,
  listed: ReadonlyArray<UiApi.SessionRow>,
  projects: ReadonlyArray<UiApi.ProjectRow>,
  mask: (text: string) => string,
  limit = TOP_SESSIONS
): Array<SessionCost> => {
  const flagged = SessionList.unusual(allTime)
  const sessions = new Map(listed.map((row) => [row.sessionId, row]))
  const names = new Map(projects.map((project) => [project.projectKey, project.name]))
  return [...inRange.rows]
    .sort((a, b) => b.costUSD - a.costUSD || b.tokens.total - a.tokens.total || a.key.localeCompare(b.key))
    .slice(0, Math.max(0, limit))
    .map((row) => {
      const session = sessions.get(row.key)
      const title = session?.title ?? session?.firstPrompt ?? null
      const projectKey = row.projectKey ?? session?.projectKey ?? ""
      return {
        sessionId: row.key,
        projectKey,
        project: names.get(projectKey) ?? projectKey,
        title: title === null ? null : mask(title),
        firstTimestamp: row.firstMs === undefined ? null : new Date(row.firstMs).toISOString(),
        ...SessionList.figureOf(row),
        outlier: flagged.has(row.key)
      }
    })
}

/**
 * Dollars as the page shows them: the CLI's rule (`Money.usd`), `$1,234.56` and `<$0.01`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const dollars: (value: number) => string = Money.usd

/**
 * An exact count with thousands separated by commas (`15,780,123`).
 *
 * @since 0.1.0
 * @category formatting
 */
export const tokenCount = (value: number): string =>
  !Number.isFinite(value) ? "-" : `${value < 0 ? "-" : ""}${Money.grouped(String(Math.trunc(Math.abs(value))))}`

/**
 * The window `now` falls in, as the "now" panel shows it.
 *
 * @since 0.3.0
 * @category models
 */
export interface NowWindow {
  /** ISO 8601. */
  readonly start: string
  /** ISO 8601: the window's end, its reset. */
  readonly end: string
  readonly costUSD: number
  readonly tokens: number
  readonly messages: number
  readonly models: ReadonlyArray<string>
  readonly unpriced: ReadonlyArray<string>
  readonly costPerHour: number | null
  readonly tokensPerHour: number | null
  /** Its dollars at its end at the current burn rate. */
  readonly projectedUSD: number | null
  readonly remainingMs: number
}

/**
 * A recorded quota reading, as the quota chart draws it.
 *
 * @since 0.3.0
 * @category models
 */
export interface QuotaPoint {
  /** Epoch ms observed. */
  readonly at: number
  readonly window: "five_hour" | "seven_day"
  readonly usedPercentage: number
  /** Epoch seconds. */
  readonly resetsAt: number
}

/**
 * `GET /api/costs/now`: the active 5-hour window (or `null`), and the quota readings the
 * statusline recorded (the last {@link MAX_QUOTA_POINTS}).
 *
 * @since 0.3.0
 * @category models
 */
export interface NowResponse {
  /** ISO 8601: when the server computed it. */
  readonly now: string
  readonly window: NowWindow | null
  readonly quota: ReadonlyArray<QuotaPoint>
}

/**
 * How many quota readings the chart gets at most (the latest).
 *
 * @since 0.3.0
 * @category constants
 */
export const MAX_QUOTA_POINTS = 5000

/**
 * The "now" response from a block report (`@acx/claude-code/BlockStats`) and the readings.
 *
 * @since 0.3.0
 * @category rows
 */
export const nowResponse = (
  report: BlockStats.BlockReport,
  readings: ReadonlyArray<QuotaPoint>
): NowResponse => {
  const active = report.rows.find((row) => row.kind === "block" && row.active)
  return {
    now: new Date(report.nowMs).toISOString(),
    window: active === undefined ? null : {
      start: new Date(active.startMs).toISOString(),
      end: new Date(active.endMs).toISOString(),
      costUSD: active.costUSD,
      tokens: active.tokens.total,
      messages: active.messages,
      models: active.models,
      unpriced: active.unpriced,
      costPerHour: active.burn?.costPerHour ?? null,
      tokensPerHour: active.burn?.tokensPerHour ?? null,
      projectedUSD: active.projection?.costUSD ?? null,
      remainingMs: active.endMs - report.nowMs
    },
    quota: [...readings].sort((a, b) => a.at - b.at).slice(-MAX_QUOTA_POINTS).map((r) => ({
      at: r.at,
      window: r.window,
      usedPercentage: r.usedPercentage,
      resetsAt: r.resetsAt
    }))
  }
}
