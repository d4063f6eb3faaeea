/**
 * Reports from folded transcript files ({@link StatsFold}): rows by session, local day, week,
 * month, model, project, machine or OS user, each with its per-model breakdown (tokens and dollars), a total row,
 * and a day range filter. A session is its main transcript plus its subagents' transcripts.
 *
 * Pure and total.
 *
 * @since 0.1.0
 */
import * as Pricing from "./Pricing.js"
import { addModelCell, type DayCell, emptyModelCell, type FoldState, type ModelCell, UNDATED } from "./StatsFold.js"

/**
 * One transcript file's fold, and the session it belongs to.
 *
 * @since 0.1.0
 * @category models
 */
export interface FileFold {
  /** The transcript's path (for messages about it). */
  readonly file: string
  readonly projectKey: string
  readonly sessionId: string
  readonly fold: FoldState
  /**
   * Where its session came from, when known (a store's recorded origin, or this machine for a
   * config directory): what the `project`, `machine` and `user` rows group by. Absent: the
   * project is the project key, the machine and user {@link UNKNOWN_ORIGIN}.
   */
  readonly origin?: Origin | undefined
}

/**
 * A session's origin as the report groups by it: the machine and OS user that synced it, and its
 * project across machines (`ProjectIdentity.format`: a normalised git remote, else a path).
 *
 * @since 0.3.0
 * @category models
 */
export interface Origin {
  readonly machine: string
  readonly user: string
  readonly project: string
}

/**
 * The machine and user of a session whose origin was never recorded (a store written by the
 * SDK, or by an acx before origins).
 *
 * @since 0.3.0
 * @category constants
 */
export const UNKNOWN_ORIGIN = "unknown"

/**
 * Whether rows grouped `by` are origins (project, machine, user): only then are the files'
 * origins read.
 *
 * @since 0.3.0
 * @category grouping
 */
export const byOrigin = (by: GroupBy): by is "project" | "machine" | "user" =>
  by === "project" || by === "machine" || by === "user"

/**
 * The key a file's row has when grouped by an origin field (`project`, `machine`, `user`).
 *
 * @since 0.3.0
 * @category grouping
 */
export const originKey = (file: Pick<FileFold, "projectKey" | "origin">, by: "project" | "machine" | "user"): string =>
  file.origin === undefined ? (by === "project" ? file.projectKey : UNKNOWN_ORIGIN) : file.origin[by]

/**
 * What rows stand for.
 *
 * @since 0.1.0
 * @category models
 */
export type GroupBy = "session" | "day" | "week" | "month" | "model" | "project" | "machine" | "user"

/**
 * Every grouping, in the order `--by` lists them.
 *
 * @since 0.1.0
 * @category constants
 */
export const groupings: ReadonlyArray<GroupBy> = [
  "session",
  "day",
  "week",
  "month",
  "model",
  "project",
  "machine",
  "user"
]

/**
 * Local days to keep, inclusive (`YYYY-MM-DD`); days without a timestamp are left out when
 * either bound is set.
 *
 * @since 0.1.0
 * @category models
 */
export interface DayRange {
  readonly since?: string | undefined
  readonly until?: string | undefined
}

/**
 * Token figures of a row or model; `cacheWrite` is the 5-minute and 1-hour writes together,
 * `total` every token.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tokens {
  readonly input: number
  readonly output: number
  readonly cacheRead: number
  readonly cacheWrite: number
  readonly cacheWrite5m: number
  readonly cacheWrite1h: number
  readonly total: number
}

/**
 * One model's part of a row: `costUSD` is `null` when the pricing table has no price for it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelUsage {
  readonly messages: number
  readonly tokens: Tokens
  readonly webSearchRequests: number
  readonly costUSD: number | null
}

/**
 * A report row.
 *
 * @since 0.1.0
 * @category models
 */
export interface Row {
  /**
   * The session id, day, week's Monday, month (`YYYY-MM`), model, project (its identity across
   * machines: {@link Origin.project}), machine or user.
   */
  readonly key: string
  /** Set on session rows. */
  readonly projectKey?: string | undefined
  /** Set on project rows: the project keys (Claude Code's path names) the project gathers, sorted. */
  readonly projectKeys?: ReadonlyArray<string> | undefined
  readonly sessions: number
  readonly messages: {
    readonly user: number
    readonly assistant: number
    readonly toolResults: number
    readonly meta: number
  }
  readonly toolCalls: { readonly [name: string]: number }
  readonly compactions: number
  /** Distinct subagents of the row's sessions. */
  readonly subagents: number
  readonly firstMs: number | undefined
  readonly lastMs: number | undefined
  /** Active time: see {@link StatsFold.IDLE_MS}; sessions that ran at once each count. */
  readonly activeMs: number
  /** Wall-clock span from the first to the last entry. */
  readonly spanMs: number
  readonly tokens: Tokens
  /** Dollars of the priced models. */
  readonly costUSD: number
  /** Models with usage but no price. */
  readonly unpriced: ReadonlyArray<string>
  readonly models: { readonly [model: string]: ModelUsage }
}

/**
 * A report: its rows and the total.
 *
 * @since 0.1.0
 * @category models
 */
export interface Report {
  readonly by: GroupBy
  readonly rows: ReadonlyArray<Row>
  readonly total: Row
  /** Malformed lines of the files read. */
  readonly malformed: number
}

const pad2 = (n: number) => String(n).padStart(2, "0")

const DAY = /^(\d{4})-?(\d{2})-?(\d{2})$/

/**
 * A day as `YYYY-MM-DD` from `YYYY-MM-DD` or `YYYYMMDD` (spaces around allowed), when it names a
 * real date; `undefined` otherwise (`2025-02-30` is no day).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseDay = (value: string): string | undefined => {
  const match = DAY.exec(value.trim())
  if (match === null) return undefined
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])]
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0 to 99 as 1900 to 1999
  const date = new Date(0)
  date.setUTCFullYear(y, m - 1, d)
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
    ? `${match[1]}-${match[2]}-${match[3]}`
    : undefined
}

/**
 * The epoch ms at which a day (`YYYY-MM-DD`, as {@link parseDay} gives it) starts in local time
 * (the process's time zone, as the days of the report are local days); `undefined` for text that
 * is no day.
 *
 * @since 0.3.0
 * @category parsing
 */
export const localDayStart = (day: string): number | undefined => {
  const parsed = parseDay(day)
  if (parsed === undefined) return undefined
  const [y, m, d] = parsed.split("-").map(Number) as [number, number, number]
  // setFullYear, not the Date constructor: it reads years 0 to 99 as 1900 to 1999
  const date = new Date(0)
  date.setFullYear(y, m - 1, d)
  date.setHours(0, 0, 0, 0)
  return date.getTime()
}

/**
 * Why a day range was refused: a bound that is not a date, or `since` after `until`.
 *
 * @since 0.1.0
 * @category models
 */
export type DayRangeProblem =
  | { readonly _tag: "NotADate"; readonly bound: "since" | "until"; readonly value: string }
  | { readonly _tag: "Reversed"; readonly since: string; readonly until: string }

/**
 * A day range from its optional bounds as typed (see {@link parseDay}), or why it is refused.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseDayRange = (
  since: string | undefined,
  until: string | undefined
): { readonly _tag: "Range"; readonly range: DayRange } | DayRangeProblem => {
  const bounds: { since?: string; until?: string } = {}
  for (const [bound, value] of [["since", since], ["until", until]] as const) {
    if (value === undefined) continue
    const day = parseDay(value)
    if (day === undefined) return { _tag: "NotADate", bound, value }
    bounds[bound] = day
  }
  if (bounds.since !== undefined && bounds.until !== undefined && bounds.since > bounds.until) {
    return { _tag: "Reversed", since: bounds.since, until: bounds.until }
  }
  return { _tag: "Range", range: bounds }
}

/**
 * A refused range in one line, each bound named by `name` (`--since` on the command line,
 * `since` in a URL).
 *
 * @since 0.1.0
 * @category parsing
 */
export const dayRangeMessage = (
  problem: DayRangeProblem,
  name: (bound: "since" | "until") => string = (bound) => bound
): string =>
  problem._tag === "NotADate"
    ? `${name(problem.bound)}: ${JSON.stringify(problem.value)} is not a date (YYYY-MM-DD or YYYYMMDD)`
    : `${name("since")} ${problem.since} is after ${name("until")} ${problem.until}`

/**
 * The Monday (`YYYY-MM-DD`) of a day's week; {@link StatsFold.UNDATED} stays itself.
 *
 * @since 0.1.0
 * @category grouping
 */
export const weekOf = (day: string): string => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (match === null) return day
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])))
  date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7))
  return `${String(date.getUTCFullYear()).padStart(4, "0")}-${pad2(date.getUTCMonth() + 1)}-${pad2(date.getUTCDate())}`
}

const inRange = (day: string, range: DayRange): boolean => {
  if (range.since === undefined && range.until === undefined) return true
  if (day === UNDATED) return false
  return (range.since === undefined || day >= range.since) && (range.until === undefined || day <= range.until)
}

interface Acc {
  readonly key: string
  readonly projectKey: string | undefined
  readonly projectKeys: Set<string>
  readonly sessions: Set<string>
  user: number
  assistant: number
  toolResults: number
  meta: number
  compactions: number
  readonly toolCalls: Map<string, number>
  firstMs: number
  lastMs: number
  activeMs: number
  readonly models: Map<string, ModelCell>
}

const newAcc = (key: string, projectKey?: string): Acc => ({
  key,
  projectKey,
  projectKeys: new Set(),
  sessions: new Set(),
  user: 0,
  assistant: 0,
  toolResults: 0,
  meta: 0,
  compactions: 0,
  toolCalls: new Map(),
  firstMs: Number.POSITIVE_INFINITY,
  lastMs: Number.NEGATIVE_INFINITY,
  activeMs: 0,
  models: new Map()
})

const addDay = (acc: Acc, session: string, cell: DayCell, onlyModel?: string): void => {
  acc.sessions.add(session)
  if (cell.firstMs < acc.firstMs) acc.firstMs = cell.firstMs
  if (cell.lastMs > acc.lastMs) acc.lastMs = cell.lastMs
  acc.activeMs += cell.activeMs
  for (const [model, figures] of Object.entries(cell.models)) {
    if (onlyModel !== undefined && model !== onlyModel) continue
    let target = acc.models.get(model)
    if (target === undefined) acc.models.set(model, target = emptyModelCell())
    addModelCell(target, figures)
  }
  if (onlyModel !== undefined) return
  acc.user += cell.user
  acc.assistant += cell.assistant
  acc.toolResults += cell.toolResults
  acc.meta += cell.meta
  acc.compactions += cell.compactions
  for (const [name, n] of Object.entries(cell.toolCalls)) acc.toolCalls.set(name, (acc.toolCalls.get(name) ?? 0) + n)
}

const tokensOf = (cell: ModelCell): Tokens => {
  const cacheWrite = cell.cacheWrite5m + cell.cacheWrite1h
  return {
    input: cell.input,
    output: cell.output,
    cacheRead: cell.cacheRead,
    cacheWrite,
    cacheWrite5m: cell.cacheWrite5m,
    cacheWrite1h: cell.cacheWrite1h,
    total: cell.input + cell.output + cell.cacheRead + cacheWrite
  }
}

const finish = (acc: Acc, pricing: Pricing.PricingTable, subagents: (session: string) => number): Row => {
  const all = emptyModelCell()
  const models: Array<readonly [string, ModelUsage]> = []
  const unpriced: Array<string> = []
  let costUSD = 0
  for (const model of [...acc.models.keys()].sort()) {
    const cell = acc.models.get(model)!
    addModelCell(all, cell)
    const priced = Pricing.ratesFor(pricing, model) !== undefined
    if (priced) costUSD += cell.costUSD
    else if (cell.messages > 0) unpriced.push(model)
    models.push([model, {
      messages: cell.messages,
      tokens: tokensOf(cell),
      webSearchRequests: cell.webSearchRequests,
      costUSD: priced ? cell.costUSD : null
    }])
  }
  const known = Number.isFinite(acc.firstMs) && Number.isFinite(acc.lastMs)
  let agents = 0
  for (const session of acc.sessions) agents += subagents(session)
  return {
    key: acc.key,
    ...(acc.projectKey !== undefined ? { projectKey: acc.projectKey } : {}),
    ...(acc.projectKeys.size > 0 ? { projectKeys: [...acc.projectKeys].sort() } : {}),
    sessions: acc.sessions.size,
    messages: { user: acc.user, assistant: acc.assistant, toolResults: acc.toolResults, meta: acc.meta },
    toolCalls: Object.fromEntries([...acc.toolCalls].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))),
    compactions: acc.compactions,
    subagents: agents,
    firstMs: known ? acc.firstMs : undefined,
    lastMs: known ? acc.lastMs : undefined,
    activeMs: acc.activeMs,
    spanMs: known ? acc.lastMs - acc.firstMs : 0,
    tokens: tokensOf(all),
    costUSD,
    unpriced,
    models: Object.fromEntries(models)
  }
}

const sessionKey = (file: FileFold) => JSON.stringify([file.projectKey, file.sessionId])

const order = (by: GroupBy) => (a: Row, b: Row): number => {
  switch (by) {
    case "session":
      return (a.firstMs ?? Number.POSITIVE_INFINITY) - (b.firstMs ?? Number.POSITIVE_INFINITY) ||
        a.key.localeCompare(b.key)
    case "model":
      return b.costUSD - a.costUSD || b.tokens.total - a.tokens.total || a.key.localeCompare(b.key)
    default:
      // dates sort as text; `undated` after every date
      return a.key === b.key ? 0 : a.key === UNDATED ? 1 : b.key === UNDATED ? -1 : a.key < b.key ? -1 : 1
  }
}

/**
 * The report of folded files grouped `by`, limited to the days of `range`, priced with
 * `pricing` (the table the folds were priced with: it decides which models are unpriced). A
 * session, day, week, month, project, machine or user with nothing in the range has no row.
 * Projects, machines and users are the files' origins ({@link originKey}).
 *
 * @since 0.1.0
 * @category reports
 */
export const report = (
  files: ReadonlyArray<FileFold>,
  by: GroupBy,
  range: DayRange,
  pricing: Pricing.PricingTable
): Report => {
  const reducer = reportReducer(by, range, pricing)
  for (const file of files) reducer.add(file)
  return reducer.finish()
}

/**
 * {@link report} one file at a time: `add` each file's fold (in the order {@link report} would
 * take them: sums of dollars depend on their order), then `finish` once. A file's fold is not
 * kept, so files folded one after another can be reported without holding them all.
 *
 * @since 0.7.0
 * @category reports
 */
export interface ReportReducer {
  readonly add: (file: FileFold) => void
  readonly finish: () => Report
}

/**
 * A {@link ReportReducer} grouping `by`, within `range`, priced with `pricing`.
 *
 * @since 0.7.0
 * @category reports
 */
export const reportReducer = (by: GroupBy, range: DayRange, pricing: Pricing.PricingTable): ReportReducer => {
  const groups = new Map<string, Acc>()
  const total = newAcc("total")
  const agents = new Map<string, Set<string>>()
  let malformed = 0
  const group = (key: string, projectKey?: string): Acc => {
    let acc = groups.get(key)
    if (acc === undefined) groups.set(key, acc = newAcc(key, projectKey))
    return acc
  }
  const addCell = (file: FileFold, session: string, day: string, cell: DayCell): void => {
    switch (by) {
      case "session":
        return addDay(group(session, file.projectKey), session, cell)
      case "day":
        return addDay(group(day), session, cell)
      case "week":
        return addDay(group(weekOf(day)), session, cell)
      case "month":
        return addDay(group(day === UNDATED ? day : day.slice(0, 7)), session, cell)
      case "project": {
        const acc = group(originKey(file, "project"))
        acc.projectKeys.add(file.projectKey)
        return addDay(acc, session, cell)
      }
      case "machine":
      case "user":
        return addDay(group(originKey(file, by)), session, cell)
      case "model":
        for (const model of Object.keys(cell.models)) addDay(group(model), session, cell, model)
    }
  }
  const add = (file: FileFold): void => {
    const session = sessionKey(file)
    malformed += file.fold.malformed
    let used = false
    for (const [day, cell] of Object.entries(file.fold.days)) {
      if (!inRange(day, range)) continue
      used = true
      addDay(total, session, cell)
      addCell(file, session, day, cell)
    }
    if (!used) return
    let set = agents.get(session)
    if (set === undefined) agents.set(session, set = new Set())
    for (const agent of file.fold.agents) set.add(agent)
    if (file.fold.anonymousSidechain) set.add("\u0000sidechain")
  }
  const finishAll = (): Report => {
    const subagents = (session: string) => agents.get(session)?.size ?? 0
    const rows = [...groups.values()].map((acc) => {
      const row = finish(acc, pricing, subagents)
      // a session row is keyed by its id (the group key also held the project)
      return by === "session" ? { ...row, key: (JSON.parse(acc.key) as [string, string])[1] } : row
    })
    return { by, rows: rows.sort(order(by)), total: finish(total, pricing, subagents), malformed }
  }
  return { add, finish: finishAll }
}
