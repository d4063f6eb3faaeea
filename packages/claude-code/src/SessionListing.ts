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
import * as ListingRows from "./ListingRows.js"

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
  lastTime: optional,
  /**
   * The project across machines: the normalised git remote of its working directory, else the
   * directory (a store's recorded origin; absent for a session a store recorded none of).
   */
  project: optional,
  /** The machine it was recorded on (this machine's name for a config directory). */
  machine: optional
}).annotations({ identifier: "ListedSession" })

/**
 * @since 0.1.0
 * @category models
 */
export type ListedSession = typeof ListedSession.Type

// the Schema's type and the Effect-free row type of `ListingRows` are the same shape, both ways
const sameRow: (row: ListedSession) => ListingRows.ListedSession = (row) => row
const sameSchema: (row: ListingRows.ListedSession) => ListedSession = (row) => row
void sameRow
void sameSchema

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
export const lastActivity = ListingRows.lastActivity

/**
 * The order of every listing: last active first, ties by session id.
 *
 * @since 0.1.0
 * @category ordering
 */
export const byLastActivity = ListingRows.byLastActivity

/**
 * The sessions of `ClaudeProjects.listSessions` as a listing's rows: in {@link byLastActivity}
 * order, each holding {@link ListedSession}'s fields only (absent ones left out, never `null`).
 * What `acx sessions --json` prints and `GET /api/sessions` sends. (In `ListingRows`, which
 * loads without Effect.)
 *
 * @since 0.1.0
 * @category rows
 */
export const rows = ListingRows.rows
