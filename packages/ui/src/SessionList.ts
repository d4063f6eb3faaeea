/**
 * The sessions page's data as pure functions (its rows are `SessionListing.rows`): projects named
 * from the `cwd` their entries were written in; each session's usage from a stats report with
 * the sessions that cost far more than their project's usual flagged; the query of a page of the
 * list (`GET /api/sessions?offset=&limit=&…`) and what its filters compare.
 *
 * @since 0.1.0
 */
import type * as StatsReport from "@acx/convert/StatsReport"
import * as CostOutliers from "./CostOutliers.js"
import type * as UiApi from "./UiApi.js"

/**
 * The last segment of a path written on any system (`/a/b` and `C:\a\b`), without trailing
 * separators; the whole string when it has none.
 *
 * @since 0.1.0
 * @category naming
 */
export const lastSegment = (dir: string): string => {
  const trimmed = dir.replace(/[\\/]+$/, "")
  const cut = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"))
  const name = cut < 0 ? trimmed : trimmed.slice(cut + 1)
  return name === "" ? dir : name
}

/**
 * The projects of `rows` (rows newest first): named from the newest session's `cwd`, else the
 * directory name; sorted by name, then key.
 *
 * @since 0.1.0
 * @category rows
 */
export const projectRows = (rows: ReadonlyArray<UiApi.SessionRow>): Array<UiApi.ProjectRow> => {
  const projects = new Map<string, { cwd: string | null; sessions: number }>()
  for (const row of rows) {
    const project = projects.get(row.projectKey)
    if (project === undefined) projects.set(row.projectKey, { cwd: row.cwd ?? null, sessions: 1 })
    else {
      project.sessions++
      project.cwd ??= row.cwd ?? null
    }
  }
  return [...projects].map(([projectKey, { cwd, sessions }]) => ({
    projectKey,
    name: cwd === null ? projectKey : lastSegment(cwd),
    cwd,
    sessions
  })).sort((a, b) => a.name.localeCompare(b.name) || a.projectKey.localeCompare(b.projectKey))
}

/**
 * A session's figure from its row of a report grouped by session (nothing used: no row).
 *
 * @since 0.1.0
 * @category rows
 */
export const figureOf = (row: StatsReport.Row | undefined): UiApi.SessionFigure => ({
  messages: row === undefined ? 0 : row.messages.user + row.messages.assistant,
  tokens: row?.tokens.total ?? 0,
  costUSD: row?.costUSD ?? 0,
  unpriced: row?.unpriced ?? []
})

/**
 * The sessions of a report grouped by session that `CostOutliers` flags as unusual.
 *
 * @since 0.1.0
 * @category rows
 */
export const unusual = (report: StatsReport.Report): ReadonlySet<string> =>
  CostOutliers.outliers(
    report.rows.map((row) => ({ sessionId: row.key, projectKey: row.projectKey ?? "", costUSD: row.costUSD }))
  )

/**
 * Every session's usage from a report grouped by session, outliers flagged.
 *
 * @since 0.1.0
 * @category rows
 */
export const usageRows = (report: StatsReport.Report): Array<UiApi.SessionUsage> => {
  const flagged = unusual(report)
  return report.rows.map((row) => ({ sessionId: row.key, ...figureOf(row), outlier: flagged.has(row.key) }))
}

/**
 * The origins of the listed sessions, by `projectKey/sessionId` (an origin of a session not
 * listed is left out).
 *
 * @since 0.3.0
 * @category rows
 */
export const listedOrigins = (
  rows: ReadonlyArray<UiApi.SessionRow>,
  origins: ReadonlyMap<string, StatsReport.Origin>
): { [session: string]: StatsReport.Origin } => {
  const listed: { [session: string]: StatsReport.Origin } = {}
  for (const row of rows) {
    const key = `${row.projectKey}/${row.sessionId}`
    const origin = origins.get(key)
    if (origin !== undefined) listed[key] = origin
  }
  return listed
}

/**
 * The most rows one `GET /api/sessions?limit=` page holds.
 *
 * @since 0.6.0
 * @category paging
 */
export const MAX_LIMIT = 1000

/**
 * What `GET /api/sessions` was asked for: a page (`offset`, `limit`; no `limit`: every matching
 * row from `offset`) of the sessions that match every filter given (`""`: no filter).
 *
 * @since 0.6.0
 * @category paging
 */
export interface ListQuery {
  readonly offset: number
  readonly limit: number | undefined
  /** A project key. */
  readonly project: string
  /** A project across machines (an origin's `project`). */
  readonly projectId: string
  readonly machine: string
  readonly user: string
  /** Words that must all appear in the id, title, first prompt, `cwd` or branch (any case). */
  readonly q: string
}

const count = (params: URLSearchParams, name: string, min: number, max: number): number | string | undefined => {
  const value = params.get(name)
  if (value === null) return undefined
  const n = /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN
  return Number.isSafeInteger(n) && n >= min && n <= max
    ? n
    : `${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(value.slice(0, 40))}`
}

/**
 * The query of a `GET /api/sessions` request, or the message of its `400` (an `offset` or `limit`
 * that is not a whole number in range).
 *
 * @since 0.6.0
 * @category paging
 */
export const parseListQuery = (params: URLSearchParams): ListQuery | string => {
  const offset = count(params, "offset", 0, Number.MAX_SAFE_INTEGER)
  if (typeof offset === "string") return offset
  const limit = count(params, "limit", 1, MAX_LIMIT)
  if (typeof limit === "string") return limit
  const text = (name: string) => params.get(name) ?? ""
  return {
    offset: offset ?? 0,
    limit,
    project: text("project"),
    projectId: text("projectId"),
    machine: text("machine"),
    user: text("user"),
    q: text("q")
  }
}

/**
 * The origin a listed session is shown with: its recorded one, else `unknown` (a store's session
 * written without one) in its project key.
 *
 * @since 0.6.0
 * @category rows
 */
export const originOf = (
  row: UiApi.SessionRow,
  origins: ReadonlyMap<string, StatsReport.Origin>
): StatsReport.Origin =>
  origins.get(`${row.projectKey}/${row.sessionId}`) ??
    { machine: "unknown", user: "unknown", project: row.projectKey }

/**
 * The text a session's row is found by with the list's words: its id, title, first prompt, `cwd`
 * and branch, lower case.
 *
 * @since 0.6.0
 * @category rows
 */
export const searchText = (row: UiApi.SessionRow): string =>
  [row.sessionId, row.title, row.firstPrompt, row.cwd, row.gitBranch].join("\n").toLowerCase()

/**
 * The words of a query's `q`: lower case, split on white space.
 *
 * @since 0.6.0
 * @category rows
 */
export const wordsOf = (q: string): Array<string> => q.toLowerCase().split(/\s+/).filter((word) => word !== "")
