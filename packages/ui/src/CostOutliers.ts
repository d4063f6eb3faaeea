/**
 * Which sessions cost far more than their project's usual: a pure rule the sessions and costs
 * pages share, made so that "unusual" stays rare enough to mean something. Session costs are
 * heavy-tailed (most sessions are cheap, a few long ones cost a hundred times more), so a fixed
 * multiple of the median flags every long session. Instead, per project:
 *
 * 1. only projects with at least {@link MIN_SESSIONS} sessions that cost something are judged;
 * 2. the spread is measured on the log of the costs, robustly: the median absolute deviation
 *    (MAD) of `ln(cost)`, scaled by 1.4826 to read like a standard deviation;
 * 3. a session is unusual when its cost is at least the project's median times
 *    `max(`{@link MIN_FACTOR}`, exp(`{@link Z}` × spread))` (a modified z-score of 3.5 on the log
 *    scale, and never less than 5× the median), and at least {@link MIN_USD} dollar;
 * 4. at most {@link MAX_SHARE} of the project's sessions (at least one) are flagged: the dearest.
 *
 * @since 0.1.0
 */

/**
 * The least multiple of the project's median cost that is ever flagged.
 *
 * @since 0.1.0
 * @category constants
 */
export const MIN_FACTOR = 5

/**
 * How many robust standard deviations (of the log of the costs) above the median a session must
 * be to be flagged.
 *
 * @since 0.1.0
 * @category constants
 */
export const Z = 3.5

/**
 * The least cost, in dollars, that is ever flagged.
 *
 * @since 0.1.0
 * @category constants
 */
export const MIN_USD = 1

/**
 * The fewest sessions that cost something a project needs before anything in it is called unusual.
 *
 * @since 0.1.0
 * @category constants
 */
export const MIN_SESSIONS = 5

/**
 * The largest share of a project's sessions flagged (at least one is allowed).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_SHARE = 0.05

// the MAD of a normal distribution times this is its standard deviation
const MAD_TO_SD = 1.4826

/**
 * The median of `values` (0 for none).
 *
 * @since 0.1.0
 * @category math
 */
export const median = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/**
 * The cost from which a session of a project with these (positive, finite) costs is unusual;
 * `Infinity` for a project too small to judge.
 *
 * @since 0.1.0
 * @category rules
 */
export const threshold = (costs: ReadonlyArray<number>): number => {
  if (costs.length < MIN_SESSIONS) return Number.POSITIVE_INFINITY
  const logs = costs.map(Math.log)
  const center = median(logs)
  const spread = MAD_TO_SD * median(logs.map((value) => Math.abs(value - center)))
  return Math.max(MIN_USD, Math.exp(center) * Math.max(MIN_FACTOR, Math.exp(Z * spread)))
}

/**
 * How many sessions of a project of `count` judged sessions may be flagged.
 *
 * @since 0.1.0
 * @category rules
 */
export const cap = (count: number): number => Math.max(1, Math.floor(count * MAX_SHARE))

/**
 * The ids of the sessions flagged, from each session's project and cost (sessions that cost
 * nothing, or a non-finite or negative amount, are not judged and do not count).
 *
 * @since 0.1.0
 * @category rules
 */
export const outliers = (
  sessions: ReadonlyArray<{ readonly sessionId: string; readonly projectKey: string; readonly costUSD: number }>
): ReadonlySet<string> => {
  const byProject = new Map<string, Array<{ readonly sessionId: string; readonly costUSD: number }>>()
  for (const session of sessions) {
    if (!Number.isFinite(session.costUSD) || session.costUSD <= 0) continue
    const list = byProject.get(session.projectKey) ?? []
    list.push(session)
    byProject.set(session.projectKey, list)
  }
  const flagged = new Set<string>()
  for (const list of byProject.values()) {
    const from = threshold(list.map((session) => session.costUSD))
    list
      .filter((session) => session.costUSD >= from)
      .sort((a, b) => b.costUSD - a.costUSD || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0))
      .slice(0, cap(list.length))
      .forEach((session) => flagged.add(session.sessionId))
  }
  return flagged
}
