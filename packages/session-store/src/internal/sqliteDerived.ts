/**
 * `SqliteSessionStore`'s derived tables (see `SessionDerive` and `StoreCatalog`), kept behind a
 * per-key watermark: `acx_session_keys.derived_id` is the last entry id derived, and
 * `derived_mtime` the key's mtime then, so a key whose `mtime` moved past it has entries to
 * derive. Every catalog read first catches up ({@link catchUp}): the behind keys in write
 * transactions of many keys each (the clock-row write first, as appends do), each key's new
 * entries in id order. Appends
 * pay nothing; a reader sees every entry appended before it read.
 *
 * - `acx_session_meta (project_key, session_id, state, last_activity_ms, entries, user_messages,
 *   assistant_messages, tool_calls, subagents, mtime)`: one row per session, `state` the
 *   `SessionMetadata` fold of its main transcript as JSON;
 * - `acx_session_usage (key_id, message_key, message_id, request_id, model, time_ms, uuid,
 *   input, output, cache_read, cache_write_5m, cache_write_1h, web_search_requests, cost_usd)`:
 *   one row per API message of each transcript (`key_id`);
 * - `acx_session_text (id, key_id, uuid, role, time_ms)` and the FTS5 table
 *   `acx_session_text_fts (body)` whose rowid is the text row's `id`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as PhaseBarrier from "../PhaseBarrier.js"
import * as SearchQuery from "../SearchQuery.js"
import * as SessionDerive from "../SessionDerive.js"
import type * as SessionStore from "../SessionStore.js"
import * as StoreCatalog from "../StoreCatalog.js"
import * as StoreCatalogSql from "../StoreCatalogSql.js"
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

const USAGE_CHUNK = 500 // 14 parameters a row
const TEXT_CHUNK = 1000 // 5 parameters a row

/** The DDL of migration 3: the watermark columns start behind, so existing entries derive on the first read. */
export const createTables = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE acx_session_keys ADD COLUMN derived_mtime INTEGER NOT NULL DEFAULT -1`
  yield* sql`ALTER TABLE acx_session_keys ADD COLUMN derived_id INTEGER NOT NULL DEFAULT 0`
  yield* sql`CREATE INDEX acx_session_keys_behind ON acx_session_keys (id) WHERE mtime > derived_mtime`
  yield* sql`CREATE TABLE acx_session_meta (
    project_key TEXT NOT NULL,
    session_id TEXT NOT NULL,
    state TEXT NOT NULL,
    last_activity_ms INTEGER NULL,
    entries INTEGER NOT NULL,
    user_messages INTEGER NOT NULL,
    assistant_messages INTEGER NOT NULL,
    tool_calls INTEGER NOT NULL,
    subagents INTEGER NOT NULL,
    mtime INTEGER NOT NULL,
    PRIMARY KEY (project_key, session_id)
  )`
  yield* sql`CREATE TABLE acx_session_usage (
    key_id INTEGER NOT NULL,
    message_key TEXT NOT NULL,
    message_id TEXT NULL,
    request_id TEXT NULL,
    model TEXT NULL,
    time_ms INTEGER NULL,
    uuid TEXT NULL,
    input INTEGER NULL,
    output INTEGER NULL,
    cache_read INTEGER NULL,
    cache_write_5m INTEGER NULL,
    cache_write_1h INTEGER NULL,
    web_search_requests INTEGER NULL,
    cost_usd REAL NULL,
    PRIMARY KEY (key_id, message_key)
  )`
  yield* sql`CREATE TABLE acx_session_text (
    id INTEGER PRIMARY KEY,
    key_id INTEGER NOT NULL,
    uuid TEXT NULL,
    role TEXT NOT NULL,
    time_ms INTEGER NULL
  )`
  yield* sql`CREATE INDEX acx_session_text_key ON acx_session_text (key_id)`
  yield* sql`CREATE VIRTUAL TABLE acx_session_text_fts USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')`
})

/** The key an append wrote to. */
export interface WrittenKey {
  readonly id: number
  readonly projectKey: string
  readonly sessionId: string
  readonly subpath: string
  /** Whether the key is derived for the first time (a subagent then counts). */
  readonly created: boolean
}

/** Writes what `stored` (entries of `key` in id order, after those derived before) derives. */
export const writeDerived = (
  sql: SqlClient.SqlClient,
  key: WrittenKey,
  stored: ReadonlyArray<SessionStore.SessionStoreEntry>,
  mtime: number,
  chunk: string
) =>
  Effect.gen(function*() {
    const main = key.subpath === ""
    const [meta] = main
      ? yield* sql<Pick<MetaRow, "state">>`SELECT state FROM acx_session_meta
        WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId}`
      : []
    const keys = SessionDerive.messageKeysOf(stored)
    const known = new Map<string, SessionDerive.MessageUsage>()
    if (keys.length > 0) {
      const rows = yield* sql<UsageRow>`SELECT '' AS project_key, '' AS session_id, '' AS subpath, u.*
        FROM acx_session_usage u WHERE key_id = ${key.id}
        AND message_key IN (SELECT value FROM json_each(${JSON.stringify(keys)}))`
      for (const row of rows) known.set(row.message_key, messageUsageOf(row))
    }
    const derived = SessionDerive.derive({
      entries: stored,
      main,
      metadata: stateOf(meta?.state),
      known,
      batchId: `${key.id}:${chunk}`
    })
    const { counts } = derived
    const subagents = !main && key.created ? 1 : 0
    yield* sql`INSERT INTO acx_session_meta (project_key, session_id, state, last_activity_ms, entries,
        user_messages, assistant_messages, tool_calls, subagents, mtime)
      VALUES (${key.projectKey}, ${key.sessionId}, ${JSON.stringify(derived.metadata)}, ${derived.lastActivityMs},
        ${counts.entries}, ${counts.userMessages}, ${counts.assistantMessages}, ${counts.toolCalls}, ${subagents},
        ${mtime})
      ON CONFLICT (project_key, session_id) DO UPDATE SET
        state = ${main ? sql`excluded.state` : sql`acx_session_meta.state`},
        last_activity_ms = max(coalesce(last_activity_ms, excluded.last_activity_ms),
          coalesce(excluded.last_activity_ms, last_activity_ms)),
        entries = entries + excluded.entries,
        user_messages = user_messages + excluded.user_messages,
        assistant_messages = assistant_messages + excluded.assistant_messages,
        tool_calls = tool_calls + excluded.tool_calls,
        subagents = subagents + excluded.subagents,
        mtime = max(acx_session_meta.mtime, excluded.mtime)`
    for (let start = 0; start < derived.usage.length; start += USAGE_CHUNK) {
      const rows = derived.usage.slice(start, start + USAGE_CHUNK).map((usage) => ({
        key_id: key.id,
        ...usageColumns(usage)
      }))
      yield* sql`INSERT OR REPLACE INTO acx_session_usage ${sql.insert(rows)}`
    }
    if (derived.texts.length === 0) return
    const [top] = yield* sql<{ readonly id: number | null }>`SELECT max(id) AS id FROM acx_session_text`
    const first = Number(top?.id ?? 0) + 1
    for (let start = 0; start < derived.texts.length; start += TEXT_CHUNK) {
      const chunk = derived.texts.slice(start, start + TEXT_CHUNK)
      yield* sql`INSERT INTO acx_session_text ${
        sql.insert(chunk.map((text, i) => ({
          id: first + start + i,
          key_id: key.id,
          uuid: text.uuid,
          role: text.role,
          time_ms: text.timeMs
        })))
      }`
      yield* sql`INSERT INTO acx_session_text_fts ${
        sql.insert(chunk.map((text, i) => ({ rowid: first + start + i, body: text.text })))
      }`
    }
  })

/**
 * Deletes the derived rows of a session's keys (all of them, or one subpath's): texts, their
 * index entries and usage; the meta row too when the whole session goes.
 */
export const deleteDerived = (
  sql: SqlClient.SqlClient,
  projectKey: string,
  sessionId: string,
  subpath?: string
) => {
  const keyIds = sql`(SELECT id FROM acx_session_keys WHERE project_key = ${projectKey} AND session_id = ${sessionId}
    ${subpath === undefined ? sql`` : sql`AND subpath = ${subpath}`})`
  return Effect.all([
    sql`DELETE FROM acx_session_text_fts WHERE rowid IN (SELECT id FROM acx_session_text WHERE key_id IN ${keyIds})`,
    sql`DELETE FROM acx_session_text WHERE key_id IN ${keyIds}`,
    sql`DELETE FROM acx_session_usage WHERE key_id IN ${keyIds}`,
    subpath === undefined
      ? sql`DELETE FROM acx_session_meta WHERE project_key = ${projectKey} AND session_id = ${sessionId}`
      : Effect.void
  ], { discard: true })
}

/**
 * Makes a session derive again from its entries on the next read (after one of its subagents
 * was deleted, its counts must lose what that subagent added): its derived rows deleted, its
 * keys' watermarks back to the start.
 */
export const resetSession = (sql: SqlClient.SqlClient, projectKey: string, sessionId: string) =>
  Effect.zipRight(
    deleteDerived(sql, projectKey, sessionId),
    sql`UPDATE acx_session_keys SET derived_mtime = -1, derived_id = 0
      WHERE project_key = ${projectKey} AND session_id = ${sessionId}`
  )

// Entries read per statement while catching up a key (bounded memory for any session size).
const CATCH_UP_CHUNK = 2000

interface KeyRow {
  readonly id: number
  readonly project_key: string
  readonly session_id: string
  readonly subpath: string
  readonly mtime: number
  readonly derived_mtime: number
  readonly derived_id: number
}

/** Derives the entries of key `id` not derived yet and moves its watermark; how many entries. */
const deriveKey = (sql: SqlClient.SqlClient, id: number) =>
  Effect.gen(function*() {
    const [key] = yield* sql<KeyRow>`SELECT id, project_key, session_id, subpath, mtime, derived_mtime,
      derived_id FROM acx_session_keys WHERE id = ${id}`
    if (key === undefined || Number(key.mtime) <= Number(key.derived_mtime)) return 0 // another reader did it
    const { after, count } = yield* deriveChunks(
      { after: Number(key.derived_id), first: Number(key.derived_mtime) < 0 },
      (after) =>
        sql<{ readonly id: number; readonly entry: string }>`SELECT id, entry FROM acx_session_entries
          WHERE key_id = ${id} AND id > ${after} ORDER BY id LIMIT ${CATCH_UP_CHUNK}`,
      (entries, created, chunk) =>
        writeDerived(
          sql,
          { id, projectKey: key.project_key, sessionId: key.session_id, subpath: key.subpath, created },
          entries,
          Number(key.mtime),
          chunk
        )
    )
    yield* PhaseBarrier.pause("derive")
    yield* sql`UPDATE acx_session_keys SET derived_mtime = ${key.mtime}, derived_id = ${after} WHERE id = ${id}`
    return count
  })

/**
 * Derives every entry not derived yet, key by key (main transcripts first), up to
 * `DERIVE_TRANSACTION_KEYS` keys and about `DERIVE_TRANSACTION_ENTRIES` entries in one
 * `writeTransaction`; how many entries. Cheap when nothing is behind (one indexed lookup). A
 * transaction's keys commit together: stopped inside it, none of them moved its watermark.
 */
export const catchUp = (
  sql: SqlClient.SqlClient,
  writeTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>
) =>
  Effect.gen(function*() {
    const behind = yield* sql.unsafe<{ readonly id: number }>(StoreCatalogSql.BEHIND_KEYS)
    let derived = 0
    let next = 0
    while (next < behind.length) {
      const from = next
      const done = yield* writeTransaction(Effect.gen(function*() {
        let count = 0
        let keys = 0
        while (
          from + keys < behind.length &&
          (keys === 0 || (keys < DERIVE_TRANSACTION_KEYS && count < DERIVE_TRANSACTION_ENTRIES))
        ) {
          count += yield* deriveKey(sql, behind[from + keys]!.id)
          keys++
        }
        return { count, keys }
      }))
      next += done.keys
      derived += done.count
      // one arrival per key committed: the `n`th is the commit that took the `n`th key
      for (let i = 0; i < done.keys; i++) yield* PhaseBarrier.pause("derived")
    }
    return derived
  })

/** The catalog over the store's connection. */
export const makeCatalog = (
  sql: SqlClient.SqlClient,
  writeTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>,
  storageError: (operation: string) => (cause: unknown) => SessionStore.SessionStoreError
): StoreCatalog.StoreCatalog => {
  const refresh = Effect.fn("SqliteSessionStore.catalog.refresh")(function*() {
    return yield* catchUp(sql, writeTransaction).pipe(
      Effect.mapError(storageError("catalog.refresh")),
      Effect.catchAllDefect((cause) => Effect.fail(storageError("catalog.refresh")(cause)))
    )
  })
  // A reader that cannot write (a read-only file) reads what is derived so far.
  const caughtUp = refresh().pipe(
    Effect.catchIf((error) => error.reason === "ReadOnly", () => Effect.succeed(0))
  )
  return {
    refresh,
    listSessions: Effect.fn("SqliteSessionStore.catalog.listSessions")(function*(filter = {}) {
      yield* caughtUp
      // the statement the CLI's fast read path runs too (StoreCatalogSql)
      const statement = StoreCatalogSql.listSessions(filter)
      const rows = yield* sql.unsafe<MetaRow>(statement.sql, statement.params).pipe(
        Effect.mapError(storageError("catalog.listSessions"))
      )
      return rows.map(storedSessionOf).sort(StoreCatalog.byLastActivity)
    }),
    clock: Effect.fn("SqliteSessionStore.catalog.clock")(function*() {
      const rows = yield* sql<{ readonly mtime: number | null }>`SELECT mtime FROM acx_session_store_clock WHERE id = 1`
        .pipe(Effect.mapError(storageError("catalog.clock")))
      return Number(rows[0]?.mtime ?? 0)
    }),
    usage: Effect.fn("SqliteSessionStore.catalog.usage")(function*(filter = {}) {
      yield* caughtUp
      const rows = yield* sql<UsageRow>`SELECT k.project_key, k.session_id, k.subpath, u.*
      FROM acx_session_usage u JOIN acx_session_keys k ON k.id = u.key_id
      WHERE TRUE
      ${filter.projectKey === undefined ? sql`` : sql`AND k.project_key = ${filter.projectKey}`}
      ${filter.sessionId === undefined ? sql`` : sql`AND k.session_id = ${filter.sessionId}`}
      ${filter.since === undefined ? sql`` : sql`AND u.time_ms >= ${filter.since}`}
      ORDER BY k.id, u.time_ms, u.rowid`.pipe(Effect.mapError(storageError("catalog.usage")))
      return rows.map(usageRowOf)
    }),
    search: Effect.fn("SqliteSessionStore.catalog.search")(function*(text, options = {}) {
      const query = yield* Either.match(SearchQuery.parse(text), { onLeft: Effect.fail, onRight: Effect.succeed })
      yield* caughtUp
      const match = SearchQuery.toFts5(query)
      const limit = StoreCatalog.limitOf(options.limit)
      const filtered = options.projectKey !== undefined || options.since !== undefined || options.role !== undefined
      // Three steps, so the costly work is bounded (StoreCatalog.SEARCH_CANDIDATES): the newest
      // matches that pass the filters, unranked (FTS5 walks its doclist from the newest rowid and
      // stops); bm25 over those only (bm25 needs the MATCH, so the index is matched again, from
      // the oldest candidate's rowid on, which FTS5 reads as a range of its doclist); the rows
      // and bodies of the best `limit` last (a body can be long: read 20 of them, not 2 000).
      const rows = yield* sql<HitRow>`WITH candidates(id) AS MATERIALIZED (
        SELECT acx_session_text_fts.rowid FROM acx_session_text_fts
        ${
        filtered
          ? sql`JOIN acx_session_text t ON t.id = acx_session_text_fts.rowid
          WHERE acx_session_text_fts MATCH ${match}
          ${
            options.projectKey === undefined
              ? sql``
              : sql`AND t.key_id IN (SELECT id FROM acx_session_keys WHERE project_key = ${options.projectKey})
                AND acx_session_text_fts.rowid >= ${projectEnd(sql, "min", options.projectKey)}
                AND acx_session_text_fts.rowid <= ${projectEnd(sql, "max", options.projectKey)}`
          }
          ${options.since === undefined ? sql`` : sql`AND t.time_ms >= ${options.since}`}
          ${options.role === undefined ? sql`` : sql`AND t.role = ${options.role}`}`
          : sql`WHERE acx_session_text_fts MATCH ${match}`
      }
        ORDER BY acx_session_text_fts.rowid DESC LIMIT ${StoreCatalog.candidatesOf(limit)}
      ),
      ranked(id, score) AS MATERIALIZED (
        SELECT rowid, -bm25(acx_session_text_fts) FROM acx_session_text_fts
        WHERE acx_session_text_fts MATCH ${match}
          AND rowid >= (SELECT min(id) FROM candidates) AND +rowid IN (SELECT id FROM candidates)
        ORDER BY 2 DESC, 1 LIMIT ${limit}
      )
      SELECT k.project_key, k.session_id, k.subpath, t.uuid, t.role, t.time_ms, f.body AS body, r.score AS score
      FROM ranked r
        JOIN acx_session_text t ON t.id = r.id
        JOIN acx_session_keys k ON k.id = t.key_id
        JOIN acx_session_text_fts f ON f.rowid = r.id
      ORDER BY r.score DESC, r.id`.pipe(
        Effect.mapError((cause) =>
          /fts5|MATCH/i.test(String((cause as { cause?: unknown }).cause ?? cause))
            ? new SearchQuery.SearchQueryError({
              reason: "Rejected",
              query: text,
              description: `SQLite rejected it: ${describeCause(cause)}`
            })
            : storageError("catalog.search")(cause)
        )
      )
      return rows.map((row) => hitOf(row, query, options))
    })
  }
}

// The first or last text row id of a project (an index lookup per key): the walk over a common
// word's matches starts at the project's newest text and stops at its oldest, instead of
// passing every newer match of other projects (a project synced first has the oldest ids).
const projectEnd = (sql: SqlClient.SqlClient, end: "min" | "max", projectKey: string) =>
  sql`(SELECT ${sql.literal(end)}((SELECT ${sql.literal(end)}(id) FROM acx_session_text WHERE key_id = k.id))
    FROM acx_session_keys k WHERE k.project_key = ${projectKey})`

const describeCause = (cause: unknown): string => {
  const inner = (cause as { cause?: unknown }).cause
  return inner instanceof Error ? inner.message : cause instanceof Error ? cause.message : String(cause)
}
