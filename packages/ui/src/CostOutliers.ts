/**
 * Which sessions cost far more than their project's usual: a pure rule the sessions and costs
 * pages share. A session is flagged when its project has at least {@link MIN_SESSIONS} priced
 * sessions, and it cost at least {@link FACTOR} times the project's median and at least
 * {@link MIN_USD} dollars (a $0.04 session beside $0.01 ones is no news).
 *
 * @since 0.1.0
 */

/**
 * How many times the project's median a session must cost to be flagged.
 *
 * @since 0.1.0
 * @category constants
 */
export const FACTOR = 4

/**
 * The least cost, in dollars, that is ever flagged.
 *
 * @since 0.1.0
 * @category constants
 */
export const MIN_USD = 1

/**
 * The fewest priced sessions a project needs before anything in it is called unusual.
 *
 * @since 0.1.0
 * @category constants
 */
export const MIN_SESSIONS = 3

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
 * The ids of the sessions flagged, from each session's project and cost (non-finite or negative
 * costs are ignored).
 *
 * @since 0.1.0
 * @category rules
 */
export const outliers = (
  sessions: ReadonlyArray<{ readonly sessionId: string; readonly projectKey: string; readonly costUSD: number }>
): ReadonlySet<string> => {
  const byProject = new Map<string, Array<{ readonly sessionId: string; readonly costUSD: number }>>()
  for (const session of sessions) {
    if (!Number.isFinite(session.costUSD) || session.costUSD < 0) continue
    const list = byProject.get(session.projectKey) ?? []
    list.push(session)
    byProject.set(session.projectKey, list)
  }
  const flagged = new Set<string>()
  for (const list of byProject.values()) {
    if (list.length < MIN_SESSIONS) continue
    const usual = median(list.map((session) => session.costUSD))
    for (const session of list) {
      if (session.costUSD >= MIN_USD && session.costUSD >= FACTOR * usual) flagged.add(session.sessionId)
    }
  }
  return flagged
}
