/**
 * A listed session as acx hands it out: one Schema for the rows of `acx sessions --json` and of
 * the page's `GET /api/sessions`, and one order for both. Fields a session does not have (no
 * title yet, no branch) are left out, never `null`, in both.
 *
 * The order is last activity, newest first: the last entry's `timestamp`, else the file's
 * mtime (copying or touching a transcript changes its mtime, not when the session was used),
 * ties by session id so the order is total.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type * as ClaudeProjects from "./ClaudeProjects.js"

const optional = Schema.optionalWith(Schema.String, { exact: true })

/**
 * One session of a listing: where its transcript is, its size and mtime, and what its entries
 * say (`@acx/convert/SessionMetadata`: title, first and last prompt as a listing shows them,
 * cwd, branch, first and last entry times). The shape of `ClaudeProjects.SessionInfo`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListedSession = Schema.Struct({
  projectKey: Schema.String,
  sessionId: Schema.String,
  /** The transcript's path. */
  file: Schema.String,
  /** Epoch milliseconds of the transcript's last change. */
  mtime: Schema.Number,
  /** Bytes. */
  size: Schema.Number,
  /** `custom-title`, else `ai-title`, else `summary`. */
  title: optional,
  firstPrompt: optional,
  lastPrompt: optional,
  cwd: optional,
  gitBranch: optional,
  /** ISO 8601, as written in the transcript: the first entry's time. */
  startTime: optional,
  /** ISO 8601: the last entry's time. */
  lastTime: optional
}).annotations({ identifier: "ListedSession" })

/**
 * @since 0.1.0
 * @category models
 */
export type ListedSession = typeof ListedSession.Type

/**
 * A listing: sessions in {@link byLastActivity} order.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Listing = Schema.Array(ListedSession).annotations({ identifier: "Listing" })

/**
 * When a session was last active (epoch milliseconds): its last entry's time, else its file's
 * mtime.
 *
 * @since 0.1.0
 * @category ordering
 */
export const lastActivity = (session: Pick<ListedSession, "lastTime" | "mtime">): number => {
  const written = session.lastTime === undefined ? Number.NaN : Date.parse(session.lastTime)
  return Number.isNaN(written) ? session.mtime : written
}

/**
 * The order of every listing: last active first, ties by session id.
 *
 * @since 0.1.0
 * @category ordering
 */
export const byLastActivity = (
  a: Pick<ListedSession, "lastTime" | "mtime" | "sessionId">,
  b: Pick<ListedSession, "lastTime" | "mtime" | "sessionId">
): number => lastActivity(b) - lastActivity(a) || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0)

// The Schema's fields, in its order: a row holds these and no other.
const FIELDS = Object.keys(ListedSession.fields) as ReadonlyArray<keyof ListedSession>

// What `Schema.encodeSync(ListedSession)` gives for a session (its fields are strings and numbers,
// which encode as themselves; an absent field stays absent), without the Schema's per-row cost
// (8 µs a row: 80 ms for 10 000 sessions).
const rowOf = (session: ListedSession): ListedSession => {
  const row: Record<string, unknown> = {}
  for (const key of FIELDS) {
    const value = session[key]
    if (value !== undefined) row[key] = value
  }
  return row as unknown as ListedSession
}

/**
 * The sessions of `ClaudeProjects.listSessions` as a listing's rows: in {@link byLastActivity}
 * order, each holding {@link ListedSession}'s fields only (absent ones left out, never `null`).
 * What `acx sessions --json` prints and `GET /api/sessions` sends.
 *
 * @since 0.1.0
 * @category rows
 */
export const rows = (sessions: ReadonlyArray<ClaudeProjects.SessionInfo>): Array<ListedSession> =>
  [...sessions].sort(byLastActivity).map(rowOf)
