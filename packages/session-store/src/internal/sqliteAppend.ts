/**
 * The write path of `SqliteSessionStore` (its module doc): `append`, one transaction that takes
 * the database write lock with the clock row, writes the key row, inserts the entries (a `uuid`
 * already stored under the key is skipped by the unique index) and folds the main transcript's
 * summary over the entries actually stored.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as EntryText from "../EntryText.js"
import * as SessionStore from "../SessionStore.js"
import { parseJson } from "./sqliteErrors.js"

/** The `subpath` column of the main transcript. */
export const MAIN = ""

/** A key's `subpath` column: {@link MAIN} for the main transcript. */
export const subpathOf = (key: SessionStore.SessionKey): string => key.subpath ?? MAIN

const uuidOf = (entry: SessionStore.SessionStoreEntry): string | null =>
  typeof entry.uuid === "string" && entry.uuid.length > 0 ? entry.uuid : null

/** What the write path shares with the store. */
export interface AppendContext {
  readonly sql: SqlClient.SqlClient
  /** A failed statement as the store's error for `operation`. */
  readonly storageError: (operation: string) => (cause: unknown) => SessionStore.SessionStoreError
  /** The next mtime of the store clock (strictly increasing; takes the write lock). */
  readonly nextMtime: Effect.Effect<number, SqlError>
}

/** A summary row as stored. */
export interface SummaryRow {
  readonly sessionId: string
  readonly mtime: number
  readonly data: string
}

// Rows per INSERT statement: 4 parameters each, under SQLite's default 32 766.
const INSERT_CHUNK = 1000

// The multi-row INSERT text for `rows` rows; full chunks always reuse the same text, so the
// client's prepared-statement cache serves them.
const insertTexts = new Map<number, string>()
const insertText = (rows: number): string => {
  let text = insertTexts.get(rows)
  if (text === undefined) {
    text = `INSERT INTO acx_session_entries (key_id, uuid, entry, created_at) VALUES ${
      Array(rows).fill("(?, ?, ?, ?)").join(",")
    } ON CONFLICT DO NOTHING`
    if (insertTexts.size < 64) insertTexts.set(rows, text)
  }
  return text
}

/** A batch as its rows' columns: each entry's `uuid` (or null) and JSON text (`EntryText`). */
interface EncodedBatch {
  readonly uuids: ReadonlyArray<string | null>
  readonly jsons: ReadonlyArray<string>
}

const encodeBatch = (entries: ReadonlyArray<SessionStore.SessionStoreEntry>): EncodedBatch => {
  const count = entries.length
  const uuids = new Array<string | null>(count)
  const jsons = new Array<string>(count)
  for (let i = 0; i < count; i++) {
    const entry = entries[i]!
    uuids[i] = uuidOf(entry)
    jsons[i] = EntryText.textOf(entry)
  }
  return { uuids, jsons }
}

// Multi-row INSERTs (chunked under SQLite's 32 766 bound parameters); a row the unique uuid
// index rejects, already stored or earlier in this batch, is skipped by ON CONFLICT. How many
// rows were inserted.
const insertRows = (sql: SqlClient.SqlClient, keyId: number, batch: EncodedBatch, mtime: number) =>
  Effect.gen(function*() {
    const { jsons, uuids } = batch
    const count = jsons.length
    let changes = 0
    for (let start = 0; start < count; start += INSERT_CHUNK) {
      const end = Math.min(count, start + INSERT_CHUNK)
      const params = new Array<unknown>((end - start) * 4)
      for (let i = start, p = 0; i < end; i++, p += 4) {
        params[p] = keyId
        params[p + 1] = uuids[i]
        params[p + 2] = jsons[i]
        params[p + 3] = mtime
      }
      const result = (yield* sql.unsafe(insertText(end - start), params).raw) as { readonly changes: number }
      changes += result.changes
    }
    return changes
  })

// What an append stored when some rows were skipped, in call order: every entry without uuid,
// and the first occurrence of each uuid the database accepted, i.e. stored under this key by this
// append: its `changes` newest rows (ids only grow, and the transaction holds the write lock).
const storedEntries = (
  sql: SqlClient.SqlClient,
  keyId: number,
  entries: ReadonlyArray<SessionStore.SessionStoreEntry>,
  uuids: ReadonlyArray<string | null>,
  changes: number
) =>
  Effect.gen(function*() {
    const inserted = yield* sql<{ readonly uuid: string | null }>`SELECT uuid FROM acx_session_entries
      WHERE key_id = ${keyId} ORDER BY id DESC LIMIT ${changes}`
    const insertedUuids = new Set<string>()
    for (const row of inserted) if (row.uuid !== null) insertedUuids.add(row.uuid)
    const kept: Array<SessionStore.SessionStoreEntry> = []
    for (let i = 0; i < entries.length; i++) {
      const uuid = uuids[i] ?? null
      if (uuid === null || insertedUuids.delete(uuid)) kept.push(entries[i]!)
    }
    return kept
  })

/** Folds `stored` into the main transcript's summary, written at `mtime`. */
const foldMainSummary = (
  sql: SqlClient.SqlClient,
  key: SessionStore.SessionKey,
  stored: ReadonlyArray<SessionStore.SessionStoreEntry>,
  mtime: number
) =>
  Effect.gen(function*() {
    const previous = yield* sql<SummaryRow>`SELECT session_id AS "sessionId", mtime, data
      FROM acx_session_summaries WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId}`
    const prev = previous[0] === undefined ? undefined : {
      sessionId: previous[0].sessionId,
      mtime: Number(previous[0].mtime),
      data: (yield* parseJson("append", previous[0].data)) as Record<string, unknown>
    }
    const summary = yield* SessionStore.foldSummary(prev, key, stored, mtime)
    yield* sql`INSERT INTO acx_session_summaries (project_key, session_id, mtime, data)
      VALUES (${key.projectKey}, ${key.sessionId}, ${summary.mtime}, ${JSON.stringify(summary.data)})
      ON CONFLICT (project_key, session_id) DO UPDATE SET mtime = excluded.mtime, data = excluded.data`
  })

/** The body of an append's transaction (the batch is valid and not empty). */
const appendBatch = (
  context: AppendContext,
  key: SessionStore.SessionKey,
  entries: ReadonlyArray<SessionStore.SessionStoreEntry>,
  batch: EncodedBatch
) =>
  Effect.gen(function*() {
    const { sql } = context
    const mtime = yield* context.nextMtime
    // The key row first, for its id: a new key gets this append's mtime, an existing one keeps
    // its own (older: the clock is strictly increasing) until something is actually stored.
    const keyRows = yield* sql<{ readonly id: number; readonly mtime: number }>`INSERT INTO acx_session_keys
      (project_key, session_id, subpath, mtime) VALUES (${key.projectKey}, ${key.sessionId}, ${
      subpathOf(key)
    }, ${mtime})
      ON CONFLICT (project_key, session_id, subpath) DO UPDATE SET mtime = acx_session_keys.mtime
      RETURNING id, mtime`
    const keyId = Number(keyRows[0]!.id)
    const newKey = Number(keyRows[0]!.mtime) === mtime
    const changes = yield* insertRows(sql, keyId, batch, mtime)
    const stored = changes === entries.length
      ? entries
      : yield* storedEntries(sql, keyId, entries, batch.uuids, changes)
    if (stored.length === 0) {
      // nothing stored: leave the key as it was (a new key cannot get here, but stays unwritten)
      if (newKey) yield* sql`DELETE FROM acx_session_keys WHERE id = ${keyId}`
      return
    }
    if (!newKey) yield* sql`UPDATE acx_session_keys SET mtime = ${mtime} WHERE id = ${keyId}`
    if (SessionStore.isMainKey(key)) yield* foldMainSummary(sql, key, stored, mtime)
  })

/** The store's `append` (the module doc). */
export const makeAppend = (context: AppendContext) =>
  Effect.fn("SqliteSessionStore.append")(function*(
    rawKey: SessionStore.SessionKey,
    rawEntries: ReadonlyArray<SessionStore.SessionStoreEntry>
  ) {
    const key = yield* SessionStore.validateKey("append", rawKey)
    const entries = yield* SessionStore.validateEntries("append", rawEntries)
    if (entries.length === 0) return
    const batch = encodeBatch(entries)
    yield* Effect.annotateCurrentSpan({ projectKey: key.projectKey, sessionId: key.sessionId, subpath: subpathOf(key) })
    yield* context.sql.withTransaction(appendBatch(context, key, entries, batch)).pipe(
      Effect.catchTag("SqlError", (cause) => Effect.fail(context.storageError("append")(cause))),
      // a failed COMMIT surfaces as a defect from `withTransaction`
      Effect.catchAllDefect((cause) => Effect.fail(context.storageError("append")(cause)))
    )
  })
