/**
 * `SessionListing`'s order and rows without its Schema: what a reader that starts without Effect
 * (the CLI's fast read path) needs to print exactly what `acx sessions` prints. `SessionListing`
 * re-exports every function here; this module holds them so they load without Effect. Pure.
 *
 * @since 0.3.0
 */
import * as Redact from "@acx/convert/Redact"
import type * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as StatsFold from "@acx/convert/StatsFold"
import type * as SessionInfo from "./SessionInfo.js"

/**
 * One row of a listing: the shape of `SessionListing.ListedSession` (its Schema's type), declared
 * here without the Schema so that this module loads without Effect and imports nothing back
 * (`SessionListing` checks at compile time that the two are the same).
 *
 * @since 0.3.0
 * @category rows
 */
export interface ListedSession extends SessionMetadata.SessionMetadata {
  readonly projectKey: string
  readonly sessionId: string
  readonly file: string
  readonly mtime: number
  readonly size: number
  /** The project across machines (`ProjectOrigin`: the normalised git remote, else the path). */
  readonly project?: string
  /** The machine the session was recorded on. */
  readonly machine?: string
}

/**
 * Where a listed session comes from: its project across machines and its machine (a store's
 * recorded origin, or this machine for a config directory: `StatsOrigins`).
 *
 * @since 0.5.0
 * @category rows
 */
export interface RowOrigin {
  readonly project: string
  readonly machine: string
}

/**
 * Origins by `projectKey/sessionId`.
 *
 * @since 0.5.0
 * @category rows
 */
export type RowOrigins = ReadonlyMap<string, RowOrigin>

/**
 * The fields of `SessionListing.ListedSession`, in its order: a row holds these and no other (a
 * test keeps the list equal to the Schema's fields).
 *
 * @since 0.3.0
 * @category rows
 */
export const FIELDS: ReadonlyArray<keyof ListedSession> = [
  "projectKey",
  "sessionId",
  "file",
  "mtime",
  "size",
  "title",
  "firstPrompt",
  "lastPrompt",
  "cwd",
  "gitBranch",
  "startTime",
  "lastTime",
  "project",
  "machine"
]

/**
 * When a session was last active (epoch milliseconds): its last entry's time, else its file's
 * mtime.
 *
 * @since 0.3.0
 * @category ordering
 */
export const lastActivity = (session: Pick<ListedSession, "lastTime" | "mtime">): number => {
  // `Date.parse`, with Claude Code's timestamps read without a full parse (a hub lists thousands)
  const written = session.lastTime === undefined ? Number.NaN : StatsFold.parseTimestamp(session.lastTime)
  return Number.isNaN(written) ? session.mtime : written
}

/**
 * The order of every listing: last active first, ties by session id.
 *
 * @since 0.3.0
 * @category ordering
 */
export const byLastActivity = (
  a: Pick<ListedSession, "lastTime" | "mtime" | "sessionId">,
  b: Pick<ListedSession, "lastTime" | "mtime" | "sessionId">
): number => byKey(lastActivity(a), a.sessionId, lastActivity(b), b.sessionId)

// What `Schema.encodeSync(ListedSession)` gives for a session (its fields are strings and numbers,
// which encode as themselves; an absent field stays absent), without the Schema's per-row cost
// (8 µs a row: 80 ms for 10 000 sessions).
// The prompts and titles are what a user typed (or a model wrote from it): their secrets are
// masked as the page masks them (`Redact.redactSecrets`), so `acx sessions` shows none the page hides.
const masked = (text: string | undefined): string | undefined =>
  typeof text === "string" ? Redact.redactSecrets(text) : text

/**
 * One row of a listing: the session `where` (its key, file, mtime and size) with `metadata`, the
 * title and prompts masked (`Redact.redactSecrets`), with `origin`'s project and machine (else the
 * session's own, when it has them); exactly {@link FIELDS}, in their order, absent ones left out.
 * A `SessionInfo` is both `where` and `metadata` (`row(session, session, origin)`); a reader of
 * stored rows passes the two it holds, without building a session first.
 *
 * @since 0.6.0
 * @category rows
 */
export const row = (
  where: Pick<ListedSession, "projectKey" | "sessionId" | "file" | "mtime" | "size" | "project" | "machine">,
  metadata: SessionMetadata.SessionMetadata,
  origin: RowOrigin | undefined
): ListedSession => {
  const out: { -readonly [K in keyof ListedSession]?: ListedSession[K] } = {}
  // assigned in FIELDS' order (the JSON's key order); an absent value is never set
  if (where.projectKey !== undefined) out.projectKey = where.projectKey
  if (where.sessionId !== undefined) out.sessionId = where.sessionId
  if (where.file !== undefined) out.file = where.file
  if (where.mtime !== undefined) out.mtime = where.mtime
  if (where.size !== undefined) out.size = where.size
  const title = masked(metadata.title)
  if (title !== undefined) out.title = title
  const firstPrompt = masked(metadata.firstPrompt)
  if (firstPrompt !== undefined) out.firstPrompt = firstPrompt
  const lastPrompt = masked(metadata.lastPrompt)
  if (lastPrompt !== undefined) out.lastPrompt = lastPrompt
  if (metadata.cwd !== undefined) out.cwd = metadata.cwd
  if (metadata.gitBranch !== undefined) out.gitBranch = metadata.gitBranch
  if (metadata.startTime !== undefined) out.startTime = metadata.startTime
  if (metadata.lastTime !== undefined) out.lastTime = metadata.lastTime
  const project = origin === undefined ? where.project : origin.project
  if (project !== undefined) out.project = project
  const machine = origin === undefined ? where.machine : origin.machine
  if (machine !== undefined) out.machine = machine
  return out as ListedSession
}

const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

// {@link byLastActivity} over times already parsed
const byKey = (aAt: number, aId: string, bAt: number, bId: string): number => bAt - aAt || byId(aId, bId)

/**
 * `rows` in {@link byLastActivity} order, as a new array: each row's time parsed once, not at
 * every comparison (a hub lists thousands); rows tied on time and session id keep their order.
 *
 * @since 0.6.0
 * @category ordering
 */
export const ordered = <A extends Pick<ListedSession, "lastTime" | "mtime" | "sessionId">>(
  rows: ReadonlyArray<A>
): Array<A> => {
  const at = rows.map(lastActivity)
  return rows.map((_, i) => i)
    .sort((i, j) => byKey(at[i]!, rows[i]!.sessionId, at[j]!, rows[j]!.sessionId))
    .map((i) => rows[i]!)
}

/**
 * The sessions of `ClaudeProjects.listSessions` as a listing's rows ({@link row}): in
 * {@link byLastActivity} order, each holding `ListedSession`'s fields only (absent ones left out,
 * never `null`), secrets in the title and prompts masked, each with its `project` and `machine`
 * when `origins` has them; the first `limit` only, when given (`acx sessions --limit`). What
 * `acx sessions --json` prints and `GET /api/sessions` sends.
 *
 * @since 0.3.0
 * @category rows
 */
export const rows = (
  sessions: ReadonlyArray<SessionInfo.SessionInfo>,
  origins: RowOrigins = new Map(),
  limit?: number | undefined
): Array<ListedSession> =>
  // the rows past the limit are never built (their masking is most of a row's cost)
  ordered(sessions).slice(0, limit).map((session) =>
    row(session, session, origins.get(`${session.projectKey}/${session.sessionId}`))
  )

/**
 * A row built without its origin (secrets masked), with when its session was last active: what a
 * listing keeps per project (`PlainListing.sessionsListing`) to merge without building it again.
 *
 * @since 0.7.0
 * @category rows
 */
export interface KeyedRow {
  readonly at: number
  readonly row: ListedSession
}

/**
 * The sessions' rows, each built as {@link rows} builds it without an origin, with its sort key.
 *
 * @since 0.7.0
 * @category rows
 */
export const keyedRows = (sessions: ReadonlyArray<SessionInfo.SessionInfo>): Array<KeyedRow> =>
  sessions.map((session) => ({ at: lastActivity(session), row: row(session, session, undefined) }))

/**
 * The order of {@link rows} over keyed rows: last active first, ties by session id.
 *
 * @since 0.7.0
 * @category ordering
 */
export const byKeyedRow = (a: KeyedRow, b: KeyedRow): number => byKey(a.at, a.row.sessionId, b.at, b.row.sessionId)

/**
 * Sets on each row its `project` and `machine` from `origins`, as {@link rows} gives them (the
 * rows of a config directory hold neither: `project` and `machine` are the last of `FIELDS`, so
 * added last the keys keep its order). The rows are changed in place: a copy of 20 000 rows costs
 * more than the rest of a listing that keeps them.
 *
 * @since 0.7.0
 * @category rows
 */
export const setOrigins = (keyed: ReadonlyArray<KeyedRow>, origins: RowOrigins): void => {
  for (const { row } of keyed) {
    const origin = origins.get(`${row.projectKey}/${row.sessionId}`)
    if (origin === undefined) continue
    const given = row as { project?: string; machine?: string }
    given.project = origin.project
    given.machine = origin.machine
  }
}
