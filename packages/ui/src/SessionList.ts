/**
 * The sessions page's data as pure functions (its rows are `SessionListing.rows`): projects named
 * from the `cwd` their entries were written in; each session's usage from a stats report with
 * the sessions that cost far more than their project's usual flagged.
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
