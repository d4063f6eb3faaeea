/**
 * The SQLite store's catalog reads as plain data, without Effect: the SQL text of the reads
 * (`SqliteSessionStore`'s catalog runs it through `@effect/sql`) and the mapping of a meta row to
 * a `StoreCatalog.StoredSession` (both SQL stores use it). A reader that must start without Effect
 * (the CLI's fast read path, `acx sessions --from sqlite:`) runs the same statements with a bare
 * driver and maps the rows with the same function, so it lists exactly what the catalog lists —
 * but only when {@link READINESS} says the store's derived data is current: otherwise a catalog
 * read would derive first, which only the store itself does.
 *
 * @since 0.3.0
 */
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import { createHash } from "node:crypto"
import type * as StoreCatalog from "./StoreCatalog.js"

/**
 * The store's last migration as this acx knows it (`acx_session_store_migrations`' last id; a
 * test keeps it equal to a fresh store's). A store migrated further (a newer acx) may hold more
 * than these statements read, so a reader without the store's code does not read it.
 *
 * @since 0.3.0
 * @category constants
 */
export const SCHEMA_VERSION = 4

/**
 * The Postgres store's last migration as this acx knows it (`PostgresSessionStore`'s newest; a
 * test keeps them equal): {@link postgresListDigest}'s `version` for a store this acx reads as is.
 *
 * @since 0.4.0
 * @category constants
 */
export const POSTGRES_SCHEMA_VERSION = 9

// A key with entries not derived yet (the partial index `acx_session_keys_behind` holds them).
const BEHIND = "mtime > derived_mtime"

/**
 * The keys with entries to derive, main transcripts first.
 *
 * @since 0.3.0
 * @category statements
 */
export const BEHIND_KEYS = `SELECT id FROM acx_session_keys WHERE ${BEHIND} ORDER BY subpath <> '', id`

/**
 * One row: `version`, the store's last migration, and `behind`, 1 when some key has entries not
 * derived yet. A catalog read answers from the derived tables as they are only when `version` is
 * {@link SCHEMA_VERSION} and `behind` is 0.
 *
 * @since 0.3.0
 * @category statements
 */
export const READINESS = `SELECT (SELECT max(migration_id) FROM acx_session_store_migrations) AS version,
  EXISTS (SELECT 1 FROM acx_session_keys WHERE ${BEHIND}) AS behind`

/**
 * A statement and its positional (`?`) parameters.
 *
 * @since 0.3.0
 * @category models
 */
export interface Statement {
  readonly sql: string
  readonly params: ReadonlyArray<string | number>
}

// A meta row `m` of a session with a main transcript (`prefix`: the tables' schema and a dot, or none).
const withMainTranscript = (prefix = "") =>
  `EXISTS (SELECT 1 FROM ${prefix}acx_session_keys k
      WHERE k.project_key = m.project_key AND k.session_id = m.session_id AND k.subpath = '')`

// The sessions with a main transcript that pass `filter`: the clauses after `FROM acx_session_meta m …`.
const sessionsWhere = (filter: StoreCatalog.SessionFilter): Statement => {
  const params: Array<string | number> = []
  let sql = `WHERE ${withMainTranscript()}`
  if (filter.projectKey !== undefined) {
    sql += " AND m.project_key = ?"
    params.push(filter.projectKey)
  }
  if (filter.sessionId !== undefined) {
    sql += " AND m.session_id = ?"
    params.push(filter.sessionId)
  }
  if (filter.since !== undefined) {
    sql += " AND coalesce(m.last_activity_ms, m.mtime) >= ?"
    params.push(filter.since)
  }
  if (filter.sessions !== undefined) {
    // one parameter whatever the number of keys (SQLite's limit is 32 766)
    sql += ` AND (m.project_key, m.session_id) IN
      (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))`
    params.push(JSON.stringify(filter.sessions.map((key) => [key.projectKey, key.sessionId])))
  }
  return { sql, params }
}

/**
 * The meta rows of the sessions with a main transcript that pass `filter` (in no particular
 * order: the caller sorts with `StoreCatalog.byLastActivity`).
 *
 * @since 0.3.0
 * @category statements
 */
export const listSessions = (filter: StoreCatalog.SessionFilter = {}): Statement => {
  const where = sessionsWhere(filter)
  return { sql: `SELECT m.* FROM acx_session_meta m\n    ${where.sql}`, params: where.params }
}

/**
 * What a listing reads of the sessions {@link listSessions} selects, with their recorded origin
 * (`acx_session_origin`) joined: a {@link ListingRow} each when run in raw (array) mode, in no
 * particular order (the listing sorts).
 *
 * @since 0.6.0
 * @category statements
 */
export const listingRows = (filter: StoreCatalog.SessionFilter = {}): Statement => {
  const where = sessionsWhere(filter)
  return { sql: `${listingSelect()}\n    ${where.sql}`, params: where.params }
}

const listingSelect = (prefix = "") =>
  `SELECT m.project_key, m.session_id, m.state, m.mtime, o.project, o.machine
    FROM ${prefix}acx_session_meta m
    LEFT JOIN ${prefix}acx_session_origin o ON o.project_key = m.project_key AND o.session_id = m.session_id`

/**
 * {@link listingRows} over a Postgres store in `schema` (a plain identifier, checked by the
 * caller), of one project (`$1`) or all: what a reader without the store lists once
 * {@link postgresReadiness} says the derived rows are current.
 *
 * @since 0.6.0
 * @category statements
 */
export const postgresListingRows = (schema: string, projectKey: string | undefined): Statement => ({
  sql: `${listingSelect(`${schema}.`)}
    WHERE ${withMainTranscript(`${schema}.`)}${projectKey === undefined ? "" : " AND m.project_key = $1"}`,
  params: projectKey === undefined ? [] : [projectKey]
})

// The readiness of a Postgres store in `schema`: its last migration and how many keys are behind.
const postgresReady = (schema: string) =>
  `(SELECT max(migration_id) FROM ${schema}.acx_session_store_migrations) AS version,
  (SELECT count(*) FROM ${schema}.acx_session_keys WHERE ${BEHIND}) AS behind`

/**
 * One row over a Postgres store in `schema` (checked by the caller): `version`, its last migration,
 * and `behind`, how many keys have entries not derived yet, as the connected role sees them. A
 * reader answers from the derived tables as they are only when `version` is
 * {@link POSTGRES_SCHEMA_VERSION} and `behind` is 0 ({@link READINESS}'s rule for SQLite).
 *
 * @since 0.6.0
 * @category statements
 */
export const postgresReadiness = (schema: string): string => `SELECT ${postgresReady(schema)}`

/**
 * A row of {@link listingRows} as an array: key, metadata state ({@link stateOf}), mtime, and the
 * recorded origin's project and machine (`null` when the store recorded none).
 *
 * @since 0.6.0
 * @category rows
 */
export type ListingRow = readonly [
  projectKey: string,
  sessionId: string,
  state: string,
  mtime: Num,
  project: string | null,
  machine: string | null
]

/**
 * A number as a driver returns it (Postgres' `pg` gives 64-bit integers as strings).
 *
 * @since 0.3.0
 * @category rows
 */
export type Num = number | string | bigint

/**
 * @since 0.3.0
 * @category rows
 */
export type NullableNum = Num | null

/**
 * A row of `acx_session_meta` (numbers may come back as strings from Postgres).
 *
 * @since 0.3.0
 * @category rows
 */
export interface MetaRow {
  readonly project_key: string
  readonly session_id: string
  readonly state: string
  readonly last_activity_ms: NullableNum
  readonly entries: Num
  readonly user_messages: Num
  readonly assistant_messages: Num
  readonly tool_calls: Num
  readonly subagents: Num
  readonly mtime: Num
}

/**
 * The metadata fold state kept in a meta row; a damaged one reads as empty (never trusted,
 * never fatal).
 *
 * @since 0.3.0
 * @category rows
 */
export const stateOf = (text: string | null | undefined): SessionMetadata.MetadataState => {
  if (text === null || text === undefined) return SessionMetadata.initialState
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return SessionMetadata.initialState
    const state: Record<string, string> = {}
    for (const key of Object.keys(parsed)) {
      const value: unknown = (parsed as Record<string, unknown>)[key]
      if (typeof value === "string") state[key] = value
    }
    return state
  } catch {
    return SessionMetadata.initialState
  }
}

/**
 * A meta row as the catalog hands it out.
 *
 * @since 0.3.0
 * @category rows
 */
export const storedSessionOf = (row: MetaRow): StoreCatalog.StoredSession => {
  // built in StoredSession's field order, without spreading throw-away objects (a catalog lists thousands)
  const stored: { -readonly [K in keyof StoreCatalog.StoredSession]?: StoreCatalog.StoredSession[K] } = Object.assign(
    { projectKey: row.project_key, sessionId: row.session_id, mtime: Number(row.mtime) },
    SessionMetadata.metadataOf(stateOf(row.state))
  )
  if (row.last_activity_ms !== null) stored.lastActivityMs = Number(row.last_activity_ms)
  stored.entries = Number(row.entries)
  stored.userMessages = Number(row.user_messages)
  stored.assistantMessages = Number(row.assistant_messages)
  stored.toolCalls = Number(row.tool_calls)
  stored.subagents = Number(row.subagents)
  return stored as StoreCatalog.StoredSession
}

const md5 = (text: string): string => createHash("md5").update(text, "utf8").digest("hex")

/**
 * A digest of a session list: `<count>:<md5>` over each listed session's key, `mtime` and entry
 * count (the catalog's key for "the same session as before": an append moves its `mtime`, a
 * delete or retention its count or the set). Each row is hashed alone (lengths before the texts:
 * no two lists spell the same row text) and the row hashes are joined in byte order, so the
 * digest does not depend on the list's order, nor on a server's collation:
 * {@link postgresListDigest} computes the same text in Postgres for the rows a role sees.
 *
 * @since 0.4.0
 * @category digests
 */
export const listDigest = (
  sessions: ReadonlyArray<
    { readonly projectKey: string; readonly sessionId: string; readonly mtime: number; readonly entries: number }
  >
): string => {
  const rows = sessions.map(({ entries, mtime, projectKey, sessionId }) =>
    md5(
      `${Buffer.byteLength(projectKey)}:${projectKey}:${Buffer.byteLength(sessionId)}:${sessionId}:${mtime}:${entries}`
    )
  )
  return `${rows.length}:${md5(rows.sort().join(""))}`
}

/**
 * A digest of the origins a report grouped by (`SessionOrigins`: each session's machine, user and
 * project, keyed by `OriginNames.originKey`), as {@link listDigest} is of a list: `<count>:<md5>`
 * of the row hashes in byte order; {@link postgresListDigest} with `origins` computes the same
 * over the origin rows a role sees.
 *
 * @since 0.4.0
 * @category digests
 */
export const originsDigest = (
  origins: Iterable<
    readonly [string, { readonly machine: string; readonly user: string; readonly project: string }]
  >
): string => {
  const rows: Array<string> = []
  for (const [key, { machine, project, user }] of origins) {
    rows.push(md5([key, machine, user, project].map((text) => `${Buffer.byteLength(text)}:${text}`).join(":")))
  }
  return `${rows.length}:${md5(rows.sort().join(""))}`
}

// `<count>:<md5>` of the row hashes `hashes` selects (as `h`), in byte order.
const digestOf = (hashes: string) =>
  `(SELECT count(*) || ':' || md5(coalesce(string_agg(h, '' ORDER BY h COLLATE "C"), '')) FROM (${hashes}) AS rows)`

const sized = (column: string) => `octet_length(${column}) || ':' || ${column}`

/**
 * One row over a Postgres store in `schema` (a plain identifier, checked by the caller): `version`,
 * its last migration; `behind`, how many keys have entries not derived yet; `digest`, the
 * {@link listDigest} of the whole session list (`listSessions` without a filter); with `origins`,
 * `origins`, the {@link originsDigest} of every origin row — all as the connected role sees them
 * (row-level security applies to each, as to the list itself), in one statement, so one snapshot.
 *
 * @since 0.4.0
 * @category digests
 */
export const postgresListDigest = (schema: string, options: { readonly origins?: boolean } = {}): string =>
  `SELECT ${postgresReady(schema)},
  ${
    digestOf(`SELECT md5(${sized("m.project_key")} || ':' || ${sized("m.session_id")} || ':' || m.mtime || ':' ||
        m.entries) AS h
      FROM ${schema}.acx_session_meta m
      WHERE ${withMainTranscript(`${schema}.`)}`)
  } AS digest${
    options.origins === true
      ? `,
  ${
        digestOf(
          `SELECT md5(${sized("(o.project_key || '/' || o.session_id)")} || ':' || ${sized("o.machine")} || ':' ||
        ${sized("o.os_user")} || ':' || ${sized("o.project")}) AS h FROM ${schema}.acx_session_origin o`
        )
      } AS origins`
      : ""
  }`
