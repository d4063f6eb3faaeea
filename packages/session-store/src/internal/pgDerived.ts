/**
 * `PostgresSessionStore`'s derived tables (see `SessionDerive` and `StoreCatalog`), in the
 * store's schema, kept behind a per-key watermark as in SQLite (`acx_session_keys.derived_id`,
 * `derived_mtime`; see `sqliteDerived`): every catalog read first derives what its keys gained,
 * in transactions of many keys each (see `catchUp`) behind the clock row's lock. Per key, not
 * store-wide, so a reader that sees only some sessions (row-level security) derives exactly those.
 *
 * - `acx_session_meta`: one row per session (as in SQLite);
 * - `acx_session_usage`: one row per API message of each transcript, keyed by
 *   `(project_key, session_id, subpath, message_key)`;
 * - `acx_session_text (id, project_key, session_id, subpath, uuid, role, time_ms, body, words)`:
 *   one row per indexed field; `words` is `to_tsvector('simple', …)` of the field's words as
 *   `SearchQuery.wordsOf` splits them (letters and digits, lower-cased: the same words FTS5's
 *   `unicode61` sees, whatever the database's locale), with a GIN index.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as PhaseBarrier from "../PhaseBarrier.js"
import * as SearchQuery from "../SearchQuery.js"
import * as SessionDerive from "../SessionDerive.js"
import type * as SessionStore from "../SessionStore.js"
import * as StoreCatalog from "../StoreCatalog.js"
import {
  DERIVE_TRANSACTION_ENTRIES,
  DERIVE_TRANSACTION_KEYS,
  deriveChunks,
  hitOf,
  type HitRow,
  messageUsageOf,
  type MetaRow,
  stateOf,
  storedSessionOf,
  usageColumns,
  type UsageRow,
  usageRowOf
} from "./catalogRows.js"

const USAGE_CHUNK = 1000 // 14 parameters a row, under Postgres' 65 535

const tables = (sql: SqlClient.SqlClient, schema: string) => ({
  meta: sql(`${schema}.acx_session_meta`),
  usage: sql(`${schema}.acx_session_usage`),
  text: sql(`${schema}.acx_session_text`),
  keys: sql(`${schema}.acx_session_keys`),
  clock: sql(`${schema}.acx_clock`),
  entries: sql(`${schema}.claude_session_entries`)
})

/** The DDL of migration 4: the watermark columns start behind, so existing entries derive on the first read. */
export const createTables = (schema: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const t = tables(sql, schema)
    yield* sql`ALTER TABLE ${t.keys} ADD COLUMN derived_mtime BIGINT NOT NULL DEFAULT -1`
    yield* sql`ALTER TABLE ${t.keys} ADD COLUMN derived_id BIGINT NOT NULL DEFAULT 0`
    yield* sql`CREATE INDEX acx_session_keys_behind_idx ON ${t.keys} (project_key) WHERE mtime > derived_mtime`
    yield* sql`CREATE TABLE ${t.meta} (
      project_key TEXT NOT NULL,
      session_id TEXT NOT NULL,
      state TEXT NOT NULL,
      last_activity_ms BIGINT NULL,
      entries BIGINT NOT NULL,
      user_messages BIGINT NOT NULL,
      assistant_messages BIGINT NOT NULL,
      tool_calls BIGINT NOT NULL,
      subagents BIGINT NOT NULL,
      mtime BIGINT NOT NULL,
      PRIMARY KEY (project_key, session_id)
    )`
    yield* sql`CREATE TABLE ${t.usage} (
      id BIGSERIAL NOT NULL,
      project_key TEXT NOT NULL,
      session_id TEXT NOT NULL,
      subpath TEXT NOT NULL,
      message_key TEXT NOT NULL,
      message_id TEXT NULL,
      request_id TEXT NULL,
      model TEXT NULL,
      time_ms BIGINT NULL,
      uuid TEXT NULL,
      input BIGINT NULL,
      output BIGINT NULL,
      cache_read BIGINT NULL,
      cache_write_5m BIGINT NULL,
      cache_write_1h BIGINT NULL,
      web_search_requests BIGINT NULL,
      cost_usd DOUBLE PRECISION NULL,
      PRIMARY KEY (project_key, session_id, subpath, message_key)
    )`
    yield* sql`CREATE TABLE ${t.text} (
      id BIGSERIAL PRIMARY KEY,
      project_key TEXT NOT NULL,
      session_id TEXT NOT NULL,
      subpath TEXT NOT NULL,
      uuid TEXT NULL,
      role TEXT NOT NULL,
      time_ms BIGINT NULL,
      body TEXT NOT NULL,
      words TSVECTOR NOT NULL
    )`
    yield* sql`CREATE INDEX acx_session_text_key_idx ON ${t.text} (project_key, session_id, subpath)`
    yield* sql`CREATE INDEX acx_session_text_words_idx ON ${t.text} USING GIN (words)`
  })

/** The key an append wrote to. */
export interface WrittenKey {
  readonly projectKey: string
  readonly sessionId: string
  readonly subpath: string
  /** Whether the key is derived for the first time (a subagent then counts). */
  readonly created: boolean
}

/** Writes what `stored` (entries of `key` in id order, after those derived before) derives. */
export const writeDerived = (
  sql: SqlClient.SqlClient,
  schema: string,
  key: WrittenKey,
  stored: ReadonlyArray<SessionStore.SessionStoreEntry>,
  mtime: number,
  chunk: string
) =>
  Effect.gen(function*() {
    const t = tables(sql, schema)
    const main = key.subpath === ""
    const [meta] = main
      ? yield* sql<Pick<MetaRow, "state">>`SELECT state FROM ${t.meta}
        WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId}`
      : []
    const keys = SessionDerive.messageKeysOf(stored)
    const known = new Map<string, SessionDerive.MessageUsage>()
    if (keys.length > 0) {
      const rows = yield* sql<UsageRow>`SELECT * FROM ${t.usage}
        WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId} AND subpath = ${key.subpath}
        AND message_key IN (SELECT json_array_elements_text(${JSON.stringify(keys)}::json))`
      for (const row of rows) known.set(row.message_key, messageUsageOf(row))
    }
    const derived = SessionDerive.derive({
      entries: stored,
      main,
      metadata: stateOf(meta?.state),
      known,
      batchId: `${key.subpath}:${chunk}`
    })
    const { counts } = derived
    const subagents = !main && key.created ? 1 : 0
    yield* sql`INSERT INTO ${t.meta} AS m (project_key, session_id, state, last_activity_ms, entries,
        user_messages, assistant_messages, tool_calls, subagents, mtime)
      VALUES (${key.projectKey}, ${key.sessionId}, ${JSON.stringify(derived.metadata)}, ${derived.lastActivityMs},
        ${counts.entries}, ${counts.userMessages}, ${counts.assistantMessages}, ${counts.toolCalls}, ${subagents},
        ${mtime})
      ON CONFLICT (project_key, session_id) DO UPDATE SET
        state = ${main ? sql`EXCLUDED.state` : sql`m.state`},
        last_activity_ms = GREATEST(m.last_activity_ms, EXCLUDED.last_activity_ms),
        entries = m.entries + EXCLUDED.entries,
        user_messages = m.user_messages + EXCLUDED.user_messages,
        assistant_messages = m.assistant_messages + EXCLUDED.assistant_messages,
        tool_calls = m.tool_calls + EXCLUDED.tool_calls,
        subagents = m.subagents + EXCLUDED.subagents,
        mtime = GREATEST(m.mtime, EXCLUDED.mtime)`
    for (let start = 0; start < derived.usage.length; start += USAGE_CHUNK) {
      const rows = derived.usage.slice(start, start + USAGE_CHUNK).map((usage) => ({
        project_key: key.projectKey,
        session_id: key.sessionId,
        subpath: key.subpath,
        ...usageColumns(usage)
      }))
      yield* sql`INSERT INTO ${t.usage} ${sql.insert(rows)}
        ON CONFLICT (project_key, session_id, subpath, message_key) DO UPDATE SET
          message_id = EXCLUDED.message_id, request_id = EXCLUDED.request_id, model = EXCLUDED.model,
          time_ms = EXCLUDED.time_ms, uuid = EXCLUDED.uuid, input = EXCLUDED.input, output = EXCLUDED.output,
          cache_read = EXCLUDED.cache_read, cache_write_5m = EXCLUDED.cache_write_5m,
          cache_write_1h = EXCLUDED.cache_write_1h, web_search_requests = EXCLUDED.web_search_requests,
          cost_usd = EXCLUDED.cost_usd`
    }
    if (derived.texts.length === 0) return
    // one parameter for the whole batch (json_to_recordset): no parameter limit, one statement
    const texts = JSON.stringify(derived.texts.map((text) => ({
      uuid: text.uuid,
      role: text.role,
      time_ms: text.timeMs,
      body: text.text,
      words: SearchQuery.wordsOf(text.text).join(" ")
    })))
    yield* sql`INSERT INTO ${t.text} (project_key, session_id, subpath, uuid, role, time_ms, body, words)
      SELECT ${key.projectKey}, ${key.sessionId}, ${key.subpath}, x.uuid, x.role, x.time_ms, x.body,
        to_tsvector('simple', x.words)
      FROM json_to_recordset(${texts}::json) AS x(uuid TEXT, role TEXT, time_ms BIGINT, body TEXT, words TEXT)`
  })

/**
 * Deletes the derived rows of a session (or of one of its subpaths): texts and usage; the meta
 * row too when the whole session goes.
 */
export const deleteDerived = (
  sql: SqlClient.SqlClient,
  schema: string,
  projectKey: string,
  sessionId: string,
  subpath?: string
) => {
  const t = tables(sql, schema)
  const scope = sql`project_key = ${projectKey} AND session_id = ${sessionId}
    ${subpath === undefined ? sql`` : sql`AND subpath = ${subpath}`}`
  return Effect.all([
    sql`DELETE FROM ${t.text} WHERE ${scope}`,
    sql`DELETE FROM ${t.usage} WHERE ${scope}`,
    subpath === undefined
      ? sql`DELETE FROM ${t.meta} WHERE project_key = ${projectKey} AND session_id = ${sessionId}`
      : Effect.void
  ], { discard: true })
}

/**
 * The `WITH` items that delete the derived rows of the sessions a `victims (project_key,
 * session_id)` query names (for `deleteOlderThan`'s single statement).
 */
export const deleteVictims = (sql: SqlClient.SqlClient, schema: string) => {
  const t = tables(sql, schema)
  const matches = sql`(project_key, session_id) IN (SELECT project_key, session_id FROM victims)`
  return sql`gone_meta AS (DELETE FROM ${t.meta} WHERE ${matches}),
    gone_usage AS (DELETE FROM ${t.usage} WHERE ${matches}),
    gone_text AS (DELETE FROM ${t.text} WHERE ${matches}),`
}

/** Makes a session derive again from its entries on the next read (see `sqliteDerived.resetSession`). */
export const resetSession = (sql: SqlClient.SqlClient, schema: string, projectKey: string, sessionId: string) =>
  Effect.zipRight(
    deleteDerived(sql, schema, projectKey, sessionId),
    sql`UPDATE ${tables(sql, schema).keys} SET derived_mtime = -1, derived_id = 0
      WHERE project_key = ${projectKey} AND session_id = ${sessionId}`
  )

const CATCH_UP_CHUNK = 2000

interface KeyRow {
  readonly project_key: string
  readonly session_id: string
  readonly subpath: string
  readonly mtime: string | number
  readonly derived_mtime: string | number
  readonly derived_id: string | number
}

/**
 * The keys to derive, main transcripts first as listed, each group started at a random key: the
 * writers that catch up at once (twenty machines ending their syncs together) then work on
 * different keys and skip what another derived, instead of queueing, all of them, for the write
 * lock on the same key one after the other.
 */
const spread = <K extends { readonly subpath: string }>(keys: ReadonlyArray<K>): ReadonlyArray<K> => {
  const rotate = (group: ReadonlyArray<K>) => {
    const start = Math.floor(Math.random() * group.length)
    return [...group.slice(start), ...group.slice(0, start)]
  }
  return [...rotate(keys.filter((key) => key.subpath === "")), ...rotate(keys.filter((key) => key.subpath !== ""))]
}

type BehindKey = Pick<KeyRow, "project_key" | "session_id" | "subpath">

/** Derives the entries of `behindKey` not derived yet and moves its watermark; how many entries. */
const deriveKey = (sql: SqlClient.SqlClient, schema: string, behindKey: BehindKey) =>
  Effect.gen(function*() {
    const t = tables(sql, schema)
    const same = sql`project_key = ${behindKey.project_key} AND session_id = ${behindKey.session_id}
      AND subpath = ${behindKey.subpath}`
    const [key] = yield* sql<KeyRow>`SELECT project_key, session_id, subpath, mtime, derived_mtime, derived_id
      FROM ${t.keys} WHERE ${same}`
    if (key === undefined || Number(key.mtime) <= Number(key.derived_mtime)) return 0 // another reader did it
    const { after, count } = yield* deriveChunks(
      { after: Number(key.derived_id), first: Number(key.derived_mtime) < 0 },
      (after) =>
        sql<{ readonly id: string | number; readonly entry: string }>`SELECT id, entry::text AS entry
          FROM ${t.entries} WHERE ${same} AND id > ${after} ORDER BY id LIMIT ${CATCH_UP_CHUNK}`,
      (entries, created, chunk) =>
        writeDerived(
          sql,
          schema,
          { projectKey: key.project_key, sessionId: key.session_id, subpath: key.subpath, created },
          entries,
          Number(key.mtime),
          chunk
        )
    )
    yield* PhaseBarrier.pause("derive")
    yield* sql`UPDATE ${t.keys} SET derived_mtime = ${Number(key.mtime)}, derived_id = ${after} WHERE ${same}`
    return count
  })

/**
 * Derives every entry not derived yet, key by key (main transcripts first), up to
 * `DERIVE_TRANSACTION_KEYS` keys and about `DERIVE_TRANSACTION_ENTRIES` entries in one
 * `writeTransaction` (its begin, lock and commit paid once for them); how many entries. A
 * transaction's keys commit together: stopped inside it, none of them moved its watermark.
 */
export const catchUp = (
  sql: SqlClient.SqlClient,
  schema: string,
  writeTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>
) =>
  Effect.gen(function*() {
    const t = tables(sql, schema)
    const behind = spread(
      yield* sql<BehindKey>`SELECT project_key, session_id, subpath FROM ${t.keys}
        WHERE mtime > derived_mtime ORDER BY subpath <> '', project_key, session_id, subpath`
    )
    let derived = 0
    let next = 0
    // keys still behind, not derived yet: a transaction stopped at its entries leaves the rest here
    let group: Array<BehindKey> = []
    while (next < behind.length || group.length > 0) {
      while (next < behind.length && group.length < DERIVE_TRANSACTION_KEYS) {
        const key = behind[next++]!
        // done by another writer meanwhile: skipped without waiting for the write lock
        const still = yield* sql`SELECT 1 FROM ${t.keys} WHERE project_key = ${key.project_key}
          AND session_id = ${key.session_id} AND subpath = ${key.subpath} AND mtime > derived_mtime`
        if (still.length > 0) group.push(key)
      }
      if (group.length === 0) continue
      const keys = group
      const done = yield* writeTransaction(Effect.gen(function*() {
        let count = 0
        let taken = 0
        while (taken < keys.length && (taken === 0 || count < DERIVE_TRANSACTION_ENTRIES)) {
          count += yield* deriveKey(sql, schema, keys[taken]!)
          taken++
        }
        return { count, taken }
      }))
      group = keys.slice(done.taken)
      derived += done.count
      // one arrival per key committed: the `n`th is the commit that took the `n`th key
      for (let i = 0; i < done.taken; i++) yield* PhaseBarrier.pause("derived")
    }
    return derived
  })

/**
 * The whole session list of the last read, kept while the rows it was read from are the same:
 * their fingerprint (keys, `mtime`s and entry counts of the rows the list reads, as this login
 * role sees them) is one short statement, where the list itself is megabytes of metadata to send
 * and decode (4 000 sessions: 2 MB). Whatever changes a listed row changes its fingerprint: an
 * append derived (its `mtime` and counts move), a delete or retention (the set shrinks), a grant
 * or revoke on a hub (row-level security shows another set). Read before the rows, so a list kept
 * under a fingerprint is never older than it.
 */
const listCache = (
  sql: SqlClient.SqlClient,
  readList: (listed: Statement.Fragment) => Effect.Effect<ReadonlyArray<StoreCatalog.StoredSession>, SqlError>
) => {
  let kept: { readonly fingerprint: string; readonly rows: ReadonlyArray<StoreCatalog.StoredSession> } | undefined
  return {
    read: (listed: Statement.Fragment) =>
      Effect.gen(function*() {
        const [row] = yield* sql<{ readonly n: string | number; readonly digest: string | null }>`SELECT count(*) AS n,
          md5(string_agg(m.project_key || '/' || m.session_id || '/' || m.mtime || '/' || m.entries, ','
            ORDER BY m.project_key, m.session_id)) AS digest ${listed}`
        const fingerprint = `${row?.n ?? 0}:${row?.digest ?? ""}`
        if (kept?.fingerprint === fingerprint) return kept.rows
        const rows = yield* readList(listed)
        kept = { fingerprint, rows }
        return rows
      })
  }
}

/** The catalog over the store's pool. */
export const makeCatalog = (
  sql: SqlClient.SqlClient,
  schema: string,
  writeTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>,
  storageError: (operation: string) => (cause: unknown) => SessionStore.SessionStoreError
): StoreCatalog.StoreCatalog => {
  const t = tables(sql, schema)
  const refresh = Effect.fn("PostgresSessionStore.catalog.refresh")(function*() {
    return yield* catchUp(sql, schema, writeTransaction).pipe(Effect.mapError(storageError("catalog.refresh")))
  })
  // A reader that may not write (a hub's viewer: Postgres refuses the clock row's lock) reads what
  // the writers derived, as a reader of a read-only SQLite file does.
  const caughtUp = refresh().pipe(Effect.catchIf((error) => error.reason === "ReadOnly", () => Effect.succeed(0)))
  const readList = (listed: Statement.Fragment) =>
    Effect.map(
      sql<MetaRow>`SELECT m.* ${listed}`,
      (rows): ReadonlyArray<StoreCatalog.StoredSession> => StoreCatalog.sortByLastActivity(rows.map(storedSessionOf))
    )
  const wholeList = listCache(sql, readList)
  return {
    refresh,
    listSessions: Effect.fn("PostgresSessionStore.catalog.listSessions")(function*(filter = {}) {
      yield* caughtUp
      const listed = sql`FROM ${t.meta} m
        WHERE EXISTS (SELECT 1 FROM ${t.keys} k
          WHERE k.project_key = m.project_key AND k.session_id = m.session_id AND k.subpath = '')
        ${filter.projectKey === undefined ? sql`` : sql`AND m.project_key = ${filter.projectKey}`}
        ${filter.sessionId === undefined ? sql`` : sql`AND m.session_id = ${filter.sessionId}`}
        ${filter.since === undefined ? sql`` : sql`AND coalesce(m.last_activity_ms, m.mtime) >= ${filter.since}`}
        ${
        filter.sessions === undefined ? sql`` : sql`AND (m.project_key, m.session_id) IN
          (SELECT x.p, x.s FROM json_to_recordset(${
          JSON.stringify(filter.sessions.map((key) => ({ p: key.projectKey, s: key.sessionId })))
        }::json) AS x(p TEXT, s TEXT))`
      }`
      const whole = Object.values(filter).every((value) => value === undefined)
      return yield* (whole ? wholeList.read(listed) : readList(listed)).pipe(
        Effect.mapError(storageError("catalog.listSessions"))
      )
    }),
    clock: Effect.fn("PostgresSessionStore.catalog.clock")(function*() {
      const rows = yield* sql<{ readonly last: string | number | null }>`SELECT last FROM ${t.clock}`
        .pipe(Effect.mapError(storageError("catalog.clock")))
      return Number(rows[0]?.last ?? 0)
    }),
    usage: Effect.fn("PostgresSessionStore.catalog.usage")(function*(filter = {}) {
      yield* caughtUp
      const rows = yield* sql<UsageRow>`SELECT * FROM ${t.usage} WHERE TRUE
        ${filter.projectKey === undefined ? sql`` : sql`AND project_key = ${filter.projectKey}`}
        ${filter.sessionId === undefined ? sql`` : sql`AND session_id = ${filter.sessionId}`}
        ${filter.since === undefined ? sql`` : sql`AND time_ms >= ${filter.since}`}
        ORDER BY project_key, session_id, subpath, time_ms, id`.pipe(Effect.mapError(storageError("catalog.usage")))
      return rows.map(usageRowOf)
    }),
    search: Effect.fn("PostgresSessionStore.catalog.search")(function*(text, options = {}) {
      const query = yield* Either.match(SearchQuery.parse(text), { onLeft: Effect.fail, onRight: Effect.succeed })
      yield* caughtUp
      const limit = StoreCatalog.limitOf(options.limit)
      // As on SQLite (StoreCatalog.SEARCH_CANDIDATES): the newest matches that pass the filters,
      // unranked (the planner walks the primary key backwards checking `words`, or reads the GIN
      // index and keeps the top ids: whichever its statistics on `words` say is cheaper), kept with
      // their `words`; ts_rank over those only (ranking by ids joined back to the table made the
      // planner hash-join a scan of every text: 200 ms of a 46 000-text hub); the rows and bodies
      // of the best last.
      // A project's texts lie between its first and last text id (read once from its index; `OFFSET 0`
      // keeps the planner from finding min/max by walking the primary key past other projects):
      // the walk over a common word's matches starts at the project's newest text, not the store's.
      const rows = yield* sql<HitRow>`WITH span AS MATERIALIZED (
          SELECT min(id) AS first, max(id) AS last
          FROM (SELECT id FROM ${t.text} WHERE project_key = ${options.projectKey ?? null} OFFSET 0) AS p
        ),
        candidates AS MATERIALIZED (
          SELECT id, words FROM ${t.text}
          WHERE words @@ to_tsquery('simple', ${SearchQuery.toTsquery(query)})
          ${
        options.projectKey === undefined ? sql`` : sql`AND project_key = ${options.projectKey}
            AND id >= (SELECT first FROM span) AND id <= (SELECT last FROM span)`
      }
          ${options.since === undefined ? sql`` : sql`AND time_ms >= ${options.since}`}
          ${options.role === undefined ? sql`` : sql`AND role = ${options.role}`}
          ORDER BY id DESC LIMIT ${StoreCatalog.candidatesOf(limit)}
        ),
        ranked AS MATERIALIZED (
          SELECT id, ts_rank(words, to_tsquery('simple', ${
        SearchQuery.toTsquery(SearchQuery.included(query))
      })) AS score
          FROM candidates
          ORDER BY score DESC, id LIMIT ${limit}
        )
        SELECT x.project_key, x.session_id, x.subpath, x.uuid, x.role, x.time_ms, x.body, r.score
        FROM ranked r JOIN ${t.text} x ON x.id = r.id
        ORDER BY r.score DESC, r.id`.pipe(
        Effect.mapError(storageError("catalog.search"))
      )
      return rows.map((row) => hitOf(row, query, options))
    })
  }
}
