/**
 * The write path of `PostgresSessionStore` (its module doc, "Concurrency"): `append`, one
 * transaction under the store clock's lock that claims the session, inserts the entries and folds
 * the summary; and the import ledger, whose record of a file moves in the same transaction as the
 * batch it took (`appendImported`). A write a hub's policies refuse because the session is another
 * member's fails `NotOwner`, naming both roles.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as EntryText from "../EntryText.js"
import * as ImportLedger from "../ImportLedger.js"
import * as PhaseBarrier from "../PhaseBarrier.js"
import * as SessionStore from "../SessionStore.js"
import { firstOfEachUuid, uuidOf } from "./entryUuids.js"
import { isRowSecurityViolation } from "./pgConnect.js"

/** Rows per INSERT statement: 5 parameters per row stays far below Postgres' 65535 limit. */
const INSERT_CHUNK = 2000

/**
 * What the write path shares with the store: its client, its schema, and `run`, which says a
 * failed statement as the store's error and traces the operation.
 */
export interface WriteContext {
  readonly sql: SqlClient.SqlClient
  readonly schema: string
  readonly run: <A, R>(
    operation: string,
    attributes: Record<string, unknown>,
    effect: Effect.Effect<A, SqlError | SessionStore.SessionStoreError, R>
  ) => Effect.Effect<A, SessionStore.SessionStoreError, R>
}

/** The store's tables in `schema`, and its clock function. */
export const tablesOf = (sql: SqlClient.SqlClient, schema: string) => ({
  entries: sql(`${schema}.claude_session_entries`),
  keys: sql(`${schema}.acx_session_keys`),
  summaries: sql(`${schema}.acx_session_summaries`),
  /** Moves the clock under its row's lock (the clock changes through the store's functions only, migration 8). */
  clockTick: sql(`${schema}.acx_clock_tick`)
})

/** A key as a span's attributes. */
export const keyAttributes = (key: SessionStore.SessionKey) => ({
  projectKey: key.projectKey,
  sessionId: key.sessionId,
  subpath: key.subpath ?? ""
})

interface LedgerRow {
  readonly file: string
  readonly size: string | number
  readonly mtime_ms: number
  readonly offset: string | number
  readonly fingerprint: string
}

/** A session's owner as `acx_claim_session` returned it, and the role asking. */
interface Claim {
  readonly owner: string | null
  readonly me: string
}

/**
 * An append refused by a shared store's row-level security because the session is another
 * role's: reason `NotOwner`, naming both roles.
 */
const notOwner = (key: SessionStore.SessionKey, claim: Claim, cause: unknown) =>
  new SessionStore.SessionStoreError({
    reason: "NotOwner",
    operation: "append",
    description: claim.owner === null
      ? `session ${key.sessionId} was stored before the hub kept owners, so no member may extend it (only an admin)`
      : `session ${key.sessionId} belongs to the hub member ${claim.owner}, not to ${claim.me}: an admin hands ` +
        `${claim.owner}'s sessions over with \`acx hub user rotate ${claim.owner} ${claim.me}\``,
    cause
  })

/**
 * A write refused by row-level security as `NotOwner` when the session it wrote to is another
 * role's (`claim()`: what `acx_claim_session` said in its transaction).
 */
const refusedUnlessOwner =
  (key: SessionStore.SessionKey, claim: () => Claim | undefined) =>
  <A, E, R>(write: Effect.Effect<A, E, R>): Effect.Effect<A, E | SessionStore.SessionStoreError, R> =>
    Effect.catchIf(
      write,
      (error) => {
        const now = claim()
        return now !== undefined && now.owner !== now.me && isRowSecurityViolation(error)
      },
      (cause) => Effect.fail(notOwner(key, claim()!, cause))
    )

/**
 * Whether the connection's role may write into `key`'s session, owned by another: it sees the
 * session's owner row (an admin, the tables' owner, any role of a store without policies); a
 * hub's sync member does not.
 */
const writesInto = (sql: SqlClient.SqlClient, schema: string, key: SessionStore.SessionKey) =>
  sql`SELECT 1 FROM ${sql(`${schema}.acx_session_owner`)}
    WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId}`.pipe(
    Effect.map((rows) => rows.length > 0)
  )

/** A summary row as read back. */
export interface SummaryRow {
  readonly session_id: string
  readonly mtime: string | number
  readonly data: Record<string, unknown>
}

/**
 * The session's owner (claimed by the connection's role when it has none; after the clock's
 * lock): a hub's policies let only it write the session's rows.
 */
const claimOf = (sql: SqlClient.SqlClient, schema: string, key: SessionStore.SessionKey) =>
  sql<Claim>`SELECT ${sql(`${schema}.acx_claim_session`)}(${key.projectKey}, ${key.sessionId}) AS owner,
    current_user AS me`.pipe(Effect.map(([row]) => row))

/**
 * A batch's rows under `key`, in INSERT statements of {@link INSERT_CHUNK} rows: the first entry
 * of each uuid (a uuid the key holds already is skipped by the unique index), each as its text
 * (`EntryText`).
 */
const rowChunks = (key: SessionStore.SessionKey, batch: ReadonlyArray<SessionStore.SessionStoreEntry>) => {
  // Keep the first occurrence of a uuid within the batch; the unique index handles the rest.
  const candidates = firstOfEachUuid(batch)
  const chunks: Array<Array<Record<string, string | null>>> = []
  for (let start = 0; start < candidates.length; start += INSERT_CHUNK) {
    chunks.push(
      candidates.slice(start, start + INSERT_CHUNK).map((entry) => ({
        project_key: key.projectKey,
        session_id: key.sessionId,
        subpath: key.subpath ?? "",
        uuid: uuidOf(entry) ?? null,
        entry: EntryText.textOf(entry)
      }))
    )
  }
  return { candidates, chunks }
}

/** The statement inserting one chunk of rows, answering the uuids it inserted. */
const insertChunk = (sql: SqlClient.SqlClient, schema: string, rows: ReadonlyArray<Record<string, string | null>>) =>
  sql`INSERT INTO ${tablesOf(sql, schema).entries} ${sql.insert(rows)} ON CONFLICT DO NOTHING RETURNING uuid`

/** The candidates actually stored: without a uuid, or with one the inserts answered. */
const storedOf = (candidates: ReadonlyArray<SessionStore.SessionStoreEntry>, inserted: ReadonlySet<string>) =>
  candidates.filter((entry) => {
    const uuid = uuidOf(entry)
    return uuid === undefined || inserted.has(uuid)
  })

/** Runs the INSERTs of `chunks`, adding the uuids they inserted to `inserted`. */
const insertChunks = (
  sql: SqlClient.SqlClient,
  schema: string,
  chunks: ReadonlyArray<ReadonlyArray<Record<string, string | null>>>,
  inserted: Set<string>
) =>
  Effect.gen(function*() {
    for (const rows of chunks) {
      for (const row of (yield* insertChunk(sql, schema, rows)) as ReadonlyArray<{ readonly uuid: string | null }>) {
        if (row.uuid !== null) inserted.add(row.uuid)
      }
    }
  })

/** The previous summary as `foldSummary` takes it. */
const previousSummary = (row: SummaryRow | undefined) =>
  row === undefined ? undefined : { sessionId: row.session_id, mtime: Number(row.mtime), data: row.data }

/** The statement writing a main key's folded summary. */
const writeSummary = (
  sql: SqlClient.SqlClient,
  schema: string,
  key: SessionStore.SessionKey,
  summary: SessionStore.SessionSummaryEntry
) =>
  sql`INSERT INTO ${tablesOf(sql, schema).summaries} (project_key, session_id, mtime, data)
    VALUES (${key.projectKey}, ${key.sessionId}, ${summary.mtime}, ${JSON.stringify(summary.data)}::json)
    ON CONFLICT (project_key, session_id) DO UPDATE SET mtime = EXCLUDED.mtime, data = EXCLUDED.data`

/** `append`: see the module doc. */
export const makeAppend = (context: WriteContext): SessionStore.SessionStore["append"] => {
  const { run, schema, sql } = context
  const { clockTick, keys, summaries } = tablesOf(sql, schema)
  return (rawKey, rawEntries) =>
    Effect.gen(function*() {
      const key = yield* SessionStore.validateKey("append", rawKey)
      const batch = yield* SessionStore.validateEntries("append", rawEntries)
      if (batch.length === 0) return
      const subpath = key.subpath ?? ""
      // before the clock row's lock: the lock is held for the statements only
      if (SessionStore.isMainKey(key)) yield* SessionStore.loadSummaryFold
      let claim: Claim | undefined
      yield* run(
        "append",
        { ...keyAttributes(key), entries: batch.length },
        sql.withTransaction(Effect.gen(function*() {
          const [tick] = yield* sql<{ readonly last: string | number }>`SELECT ${clockTick}() AS last`
          const mtime = Number(tick!.last)
          claim = yield* claimOf(sql, schema, key)
          const { candidates, chunks } = rowChunks(key, batch)
          const inserted = new Set<string>()
          yield* insertChunks(sql, schema, chunks, inserted)
          const fresh = storedOf(candidates, inserted)
          yield* sql`INSERT INTO ${keys} (project_key, session_id, subpath, mtime)
            VALUES (${key.projectKey}, ${key.sessionId}, ${subpath}, ${mtime})
            ON CONFLICT (project_key, session_id, subpath) DO UPDATE SET mtime = EXCLUDED.mtime`
          if (!SessionStore.isMainKey(key)) return
          const [prevRow] = yield* sql<SummaryRow>`SELECT session_id, mtime, data FROM ${summaries}
            WHERE project_key = ${key.projectKey} AND session_id = ${key.sessionId}`
          const summary = yield* SessionStore.foldSummary(previousSummary(prevRow), key, fresh, mtime)
          yield* writeSummary(sql, schema, key, summary)
        })).pipe(refusedUnlessOwner(key, () => claim))
      )
    })
}

/**
 * An imported batch's rows, inside `appendImported`'s transaction (the clock row locked, the
 * session claimed): as `append` stores them, in fewer round trips. The last chunk of rows, the
 * clock's tick, the key row and the previous summary are one statement; the summary folded here
 * is written with the file's record (`undefined` for a subagent's key).
 */
const importBatch = (
  sql: SqlClient.SqlClient,
  schema: string,
  key: SessionStore.SessionKey,
  batch: ReadonlyArray<SessionStore.SessionStoreEntry>
) =>
  Effect.gen(function*() {
    const { clockTick, keys, summaries } = tablesOf(sql, schema)
    const { candidates, chunks } = rowChunks(key, batch)
    const inserted = new Set<string>()
    yield* insertChunks(sql, schema, chunks.slice(0, -1), inserted)
    const last = chunks.at(-1)
    const [row] = yield* sql<{
      readonly mtime: string | number
      readonly inserted: ReadonlyArray<string> | null
      readonly previous?: SummaryRow | null
    }>`
      WITH ${last === undefined ? sql`` : sql`ins AS (${insertChunk(sql, schema, last)}),`}
      tick AS (SELECT ${clockTick}() AS last),
      k AS (INSERT INTO ${keys} (project_key, session_id, subpath, mtime)
        SELECT ${key.projectKey}, ${key.sessionId}, ${key.subpath ?? ""}, tick.last FROM tick
        ON CONFLICT (project_key, session_id, subpath) DO UPDATE SET mtime = EXCLUDED.mtime)
      SELECT tick.last AS mtime, ${
      last === undefined ? sql`NULL` : sql`(SELECT json_agg(ins.uuid) FROM ins WHERE ins.uuid IS NOT NULL)`
    } AS inserted${
      SessionStore.isMainKey(key)
        ? sql`, (SELECT json_build_object('session_id', s.session_id, 'mtime', s.mtime, 'data', s.data)
          FROM ${summaries} s WHERE s.project_key = ${key.projectKey} AND s.session_id = ${key.sessionId}) AS previous`
        : sql``
    } FROM tick`
    for (const uuid of row!.inserted ?? []) inserted.add(uuid)
    if (!SessionStore.isMainKey(key)) return undefined
    return yield* SessionStore.foldSummary(
      previousSummary(row!.previous ?? undefined),
      key,
      storedOf(candidates, inserted),
      Number(row!.mtime)
    )
  })

/**
 * The import ledger's `importedFiles` (this role's records of `source`) and `appendImported`
 * (a batch and its file's record in one transaction, stored as `append` stores it: `importBatch`).
 */
export const makeImportLedger = (context: WriteContext): ImportLedger.ImportLedger => {
  const { run, schema, sql } = context
  const ledger = sql(`${schema}.acx_import_ledger`)
  const clockLock = sql(`${schema}.acx_clock_lock`)
  const importedFiles: ImportLedger.ImportLedger["importedFiles"] = (source) =>
    run(
      "importedFiles",
      { source },
      sql<
        LedgerRow
      >`SELECT file, size, mtime_ms, "offset", fingerprint FROM ${ledger} WHERE db_user = current_user AND source = ${source}`
    ).pipe(Effect.map((rows) =>
      rows.map((row): ImportLedger.ImportedFile => ({
        file: row.file,
        size: Number(row.size),
        mtimeMs: Number(row.mtime_ms),
        offset: Number(row.offset),
        fingerprint: row.fingerprint
      }))
    ))

  const appendImported: ImportLedger.ImportLedger["appendImported"] = (rawKey, rawBatch, advance) =>
    Effect.gen(function*() {
      const { next, source } = advance
      const key = yield* SessionStore.validateKey("append", rawKey)
      const batch = yield* SessionStore.validateEntries("append", rawBatch)
      // the summary's fold loaded before the clock row's lock (see `append`)
      if (SessionStore.isMainKey(key) && batch.length > 0) yield* SessionStore.loadSummaryFold
      let claim: Claim | undefined
      return yield* run(
        "appendImported",
        { ...keyAttributes(key), entries: batch.length, file: next.file },
        sql.withTransaction(Effect.gen(function*() {
          // the clock row's lock first: every writer of the store waits on it (see the module doc),
          // so the record read below (a statement after it) cannot move before the commit
          yield* sql`SELECT ${clockLock}()`
          // the file's session claimed, and the file's record read, in one round trip: the session
          // first, its record is another's too when the session is (an empty file)
          const [row] = yield* sql<Claim & Partial<Pick<LedgerRow, "offset" | "fingerprint">>>`SELECT
            ${sql(`${schema}.acx_claim_session`)}(${key.projectKey}, ${key.sessionId}) AS owner, current_user AS me,
            l."offset", l.fingerprint
            FROM (SELECT 1) AS one LEFT JOIN ${ledger} l
              ON l.db_user = current_user AND l.source = ${source} AND l.file = ${next.file}`
          claim = { owner: row!.owner, me: row!.me }
          // a record of another's session: no row of the session's own refuses it (an empty file's
          // batch writes none, and each writer's records are its own), so the claim does, where
          // policies guard the session (a hub's sync member); a role that may write into it may
          if (claim.owner !== claim.me && !(yield* writesInto(sql, schema, key))) {
            return yield* Effect.fail(notOwner(key, claim, "a record of another member's session"))
          }
          const current = row!.offset === undefined || row!.offset === null
            ? undefined
            : { offset: Number(row!.offset), fingerprint: row!.fingerprint! }
          if (!ImportLedger.isExpected(current, advance.expected)) return false
          const summary = batch.length > 0 ? yield* importBatch(sql, schema, key, batch) : undefined
          yield* PhaseBarrier.pause("append")
          // the summary's row and the file's record in one statement
          yield* sql`${
            summary === undefined ? sql`` : sql`WITH summary AS (${writeSummary(sql, schema, key, summary)})`
          }
            INSERT INTO ${ledger} (source, file, size, mtime_ms, "offset", fingerprint)
            VALUES (${source}, ${next.file}, ${next.size}, ${next.mtimeMs}, ${next.offset}, ${next.fingerprint})
            ON CONFLICT (db_user, source, file) DO UPDATE SET size = EXCLUDED.size, mtime_ms = EXCLUDED.mtime_ms,
              "offset" = EXCLUDED."offset", fingerprint = EXCLUDED.fingerprint`
          return true
        })).pipe(refusedUnlessOwner(key, () => claim))
      )
    })
  return { importedFiles, appendImported }
}
