/**
 * What the emulator stores — projects, users, sessions, messages — in memory or in a SQLite
 * file (same behaviour, so an emulator restarted on the same file sees the data).
 *
 * @internal
 */
import type * as Acontext from "@acx/schema/Acontext"
import type * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"

/** @internal */
export interface ProjectRecord {
  readonly id: string
  readonly apiKey: string
}

/** @internal */
export interface SessionRecord {
  readonly seq: number
  readonly id: string
  readonly projectId: string
  readonly userId: string | null
  readonly disableTaskTracking: boolean
  readonly configs: { readonly [key: string]: unknown } | null
  readonly createdAt: string
  readonly updatedAt: string
}

/** @internal */
export interface MessageRecord {
  readonly seq: number
  readonly id: string
  readonly sessionId: string
  readonly parentId: string | null
  readonly role: string
  /** The full stored meta: `source_format` and, when given, `__user_meta__`. */
  readonly meta: { readonly [key: string]: unknown }
  readonly parts: ReadonlyArray<Acontext.Part>
  readonly taskProcessStatus: string
  readonly createdAt: string
  readonly updatedAt: string
}

/** @internal */
export type NewSession = Omit<SessionRecord, "seq">

/** @internal */
export type NewMessage = Omit<MessageRecord, "seq" | "parentId">

/** @internal */
export type ProjectSlot = "default" | "other"

/**
 * Storage operations. Failures of the backing store are defects (the HTTP layer turns them
 * into 500 responses).
 *
 * @internal
 */
export interface Store {
  /** The project of a slot: the stored one (its key replaced when `apiKey` is given), else a new one. */
  readonly project: (
    slot: ProjectSlot,
    fresh: ProjectRecord,
    apiKey: string | undefined
  ) => Effect.Effect<ProjectRecord>
  readonly findSession: (id: string) => Effect.Effect<SessionRecord | undefined>
  readonly insertSession: (session: NewSession) => Effect.Effect<SessionRecord>
  /** Sessions of a project (of one user when `userId` is given), oldest first. */
  readonly listSessions: (projectId: string, userId: string | undefined) => Effect.Effect<ReadonlyArray<SessionRecord>>
  readonly allSessions: Effect.Effect<ReadonlyArray<SessionRecord>>
  /** Deletes a session and its messages. */
  readonly deleteSession: (id: string) => Effect.Effect<void>
  readonly findUser: (projectId: string, identifier: string) => Effect.Effect<string | undefined>
  readonly getOrCreateUser: (projectId: string, identifier: string, freshId: string) => Effect.Effect<string>
  /** Appends a message; its `parent_id` is the session's previous message. */
  readonly insertMessage: (message: NewMessage) => Effect.Effect<MessageRecord>
  /** Messages of a session, in insertion order. */
  readonly listMessages: (sessionId: string) => Effect.Effect<ReadonlyArray<MessageRecord>>
}

/**
 * An in-memory store.
 *
 * @internal
 */
export const memory: Effect.Effect<Store> = Effect.sync(() => {
  const projects = new Map<ProjectSlot, ProjectRecord>()
  const users = new Map<string, string>()
  const sessions = new Map<string, SessionRecord>()
  const messages = new Map<string, Array<MessageRecord>>()
  let sessionSeq = 0
  let messageSeq = 0
  const userKey = (projectId: string, identifier: string) => JSON.stringify([projectId, identifier])
  const bySeq = (a: { readonly seq: number }, b: { readonly seq: number }) => a.seq - b.seq
  return {
    project: (slot, fresh, apiKey) =>
      Effect.sync(() => {
        const existing = projects.get(slot)
        const project = existing === undefined ? fresh : apiKey === undefined ? existing : { ...existing, apiKey }
        projects.set(slot, project)
        return project
      }),
    findSession: (id) => Effect.sync(() => sessions.get(id)),
    insertSession: (session) =>
      Effect.sync(() => {
        const record: SessionRecord = { ...session, seq: ++sessionSeq }
        sessions.set(record.id, record)
        messages.set(record.id, [])
        return record
      }),
    listSessions: (projectId, userId) =>
      Effect.sync(() =>
        [...sessions.values()]
          .filter((s) => s.projectId === projectId && (userId === undefined || s.userId === userId))
          .sort(bySeq)
      ),
    allSessions: Effect.sync(() => [...sessions.values()].sort(bySeq)),
    deleteSession: (id) =>
      Effect.sync(() => {
        sessions.delete(id)
        messages.delete(id)
      }),
    findUser: (projectId, identifier) => Effect.sync(() => users.get(userKey(projectId, identifier))),
    getOrCreateUser: (projectId, identifier, freshId) =>
      Effect.sync(() => {
        const key = userKey(projectId, identifier)
        const existing = users.get(key)
        if (existing !== undefined) return existing
        users.set(key, freshId)
        return freshId
      }),
    insertMessage: (message) =>
      Effect.sync(() => {
        const list = messages.get(message.sessionId) ?? []
        const record: MessageRecord = { ...message, seq: ++messageSeq, parentId: list.at(-1)?.id ?? null }
        list.push(record)
        messages.set(message.sessionId, list)
        return record
      }),
    listMessages: (sessionId) => Effect.sync(() => [...(messages.get(sessionId) ?? [])])
  }
})

interface SessionRow {
  readonly seq: number
  readonly id: string
  readonly project_id: string
  readonly user_id: string | null
  readonly disable_task_tracking: number
  readonly configs: string | null
  readonly created_at: string
  readonly updated_at: string
}

interface MessageRow {
  readonly seq: number
  readonly id: string
  readonly session_id: string
  readonly parent_id: string | null
  readonly role: string
  readonly meta: string
  readonly parts: string
  readonly task_process_status: string
  readonly created_at: string
  readonly updated_at: string
}

const fromSessionRow = (row: SessionRow): SessionRecord => ({
  seq: Number(row.seq),
  id: row.id,
  projectId: row.project_id,
  userId: row.user_id,
  disableTaskTracking: Number(row.disable_task_tracking) !== 0,
  configs: row.configs === null ? null : JSON.parse(row.configs) as SessionRecord["configs"],
  createdAt: row.created_at,
  updatedAt: row.updated_at
})

const fromMessageRow = (row: MessageRow): MessageRecord => ({
  seq: Number(row.seq),
  id: row.id,
  sessionId: row.session_id,
  parentId: row.parent_id,
  role: row.role,
  meta: JSON.parse(row.meta) as MessageRecord["meta"],
  parts: JSON.parse(row.parts) as MessageRecord["parts"],
  taskProcessStatus: row.task_process_status,
  createdAt: row.created_at,
  updatedAt: row.updated_at
})

/**
 * The SQLite driver is an optional peer of `@acx/testing`: loaded only for a file-backed store.
 */
const openSqlite = (filename: string): Effect.Effect<SqliteClient.SqliteClient, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const Sqlite = yield* Effect.tryPromise({
      // through the one driver loader (see `DriverImport` of `@acx/environment`, an optional peer too)
      try: () =>
        import("@acx/environment/DriverImport").then((DriverImport) =>
          DriverImport.load(() => import("@effect/sql-sqlite-node/SqliteClient"))
        ),
      catch: (cause) =>
        new Error(
          "the emulator's SQLite storage needs @effect/sql-sqlite-node and @acx/environment: npm install @effect/sql-sqlite-node @acx/environment",
          {
            cause
          }
        )
    })
    const context = yield* Layer.build(Sqlite.layer({ filename }))
    return Context.get(context, Sqlite.SqliteClient)
  })

/**
 * A store in a SQLite file (created when missing); the connection closes with the scope. Fails
 * with the cause when the file cannot be opened or initialised.
 *
 * @internal
 */
export const sqlite = (filename: string): Effect.Effect<Store, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const sql = yield* openSqlite(filename)
    yield* sql`CREATE TABLE IF NOT EXISTS acx_emulator_projects (
      slot TEXT PRIMARY KEY, id TEXT NOT NULL, api_key TEXT NOT NULL)`
    yield* sql`CREATE TABLE IF NOT EXISTS acx_emulator_users (
      project_id TEXT NOT NULL, identifier TEXT NOT NULL, id TEXT NOT NULL,
      PRIMARY KEY (project_id, identifier))`
    yield* sql`CREATE TABLE IF NOT EXISTS acx_emulator_sessions (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, project_id TEXT NOT NULL,
      user_id TEXT, disable_task_tracking INTEGER NOT NULL, configs TEXT,
      created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`
    yield* sql`CREATE TABLE IF NOT EXISTS acx_emulator_messages (
      seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, session_id TEXT NOT NULL,
      parent_id TEXT, role TEXT NOT NULL, meta TEXT NOT NULL, parts TEXT NOT NULL,
      task_process_status TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`
    yield* sql`CREATE INDEX IF NOT EXISTS acx_emulator_messages_session ON acx_emulator_messages (session_id, seq)`

    const store: Store = {
      project: (slot, fresh, apiKey) =>
        Effect.gen(function*() {
          const rows = yield* sql<{ id: string; api_key: string }>`
            SELECT id, api_key FROM acx_emulator_projects WHERE slot = ${slot}`
          const existing = rows[0]
          if (existing === undefined) {
            yield* sql`INSERT INTO acx_emulator_projects (slot, id, api_key)
              VALUES (${slot}, ${fresh.id}, ${fresh.apiKey})`
            return fresh
          }
          if (apiKey !== undefined && apiKey !== existing.api_key) {
            yield* sql`UPDATE acx_emulator_projects SET api_key = ${apiKey} WHERE slot = ${slot}`
            return { id: existing.id, apiKey }
          }
          return { id: existing.id, apiKey: existing.api_key }
        }).pipe(Effect.orDie),
      findSession: (id) =>
        sql<SessionRow>`SELECT * FROM acx_emulator_sessions WHERE id = ${id}`.pipe(
          Effect.map((rows) => (rows[0] === undefined ? undefined : fromSessionRow(rows[0]))),
          Effect.orDie
        ),
      insertSession: (session) =>
        sql<SessionRow>`INSERT INTO acx_emulator_sessions
            (id, project_id, user_id, disable_task_tracking, configs, created_at, updated_at)
          VALUES (${session.id}, ${session.projectId}, ${session.userId}, ${session.disableTaskTracking ? 1 : 0},
            ${session.configs === null ? null : JSON.stringify(session.configs)},
            ${session.createdAt}, ${session.updatedAt})
          RETURNING *`.pipe(Effect.map((rows) => fromSessionRow(rows[0]!)), Effect.orDie),
      listSessions: (projectId, userId) =>
        (userId === undefined
          ? sql<SessionRow>`SELECT * FROM acx_emulator_sessions WHERE project_id = ${projectId} ORDER BY seq`
          : sql<SessionRow>`SELECT * FROM acx_emulator_sessions
              WHERE project_id = ${projectId} AND user_id = ${userId} ORDER BY seq`).pipe(
            Effect.map((rows) => rows.map(fromSessionRow)),
            Effect.orDie
          ),
      allSessions: sql<SessionRow>`SELECT * FROM acx_emulator_sessions ORDER BY seq`.pipe(
        Effect.map((rows) => rows.map(fromSessionRow)),
        Effect.orDie
      ),
      deleteSession: (id) =>
        sql.withTransaction(
          Effect.zipRight(
            sql`DELETE FROM acx_emulator_messages WHERE session_id = ${id}`,
            sql`DELETE FROM acx_emulator_sessions WHERE id = ${id}`
          )
        ).pipe(Effect.asVoid, Effect.orDie),
      findUser: (projectId, identifier) =>
        sql<{ id: string }>`SELECT id FROM acx_emulator_users
          WHERE project_id = ${projectId} AND identifier = ${identifier}`.pipe(
          Effect.map((rows) => rows[0]?.id),
          Effect.orDie
        ),
      getOrCreateUser: (projectId, identifier, freshId) =>
        Effect.zipRight(
          sql`INSERT INTO acx_emulator_users (project_id, identifier, id)
            VALUES (${projectId}, ${identifier}, ${freshId}) ON CONFLICT DO NOTHING`,
          sql<{ id: string }>`SELECT id FROM acx_emulator_users
            WHERE project_id = ${projectId} AND identifier = ${identifier}`
        ).pipe(Effect.map((rows) => rows[0]?.id ?? freshId), Effect.orDie),
      insertMessage: (message) =>
        sql.withTransaction(
          Effect.gen(function*() {
            const last = yield* sql<{ id: string }>`SELECT id FROM acx_emulator_messages
              WHERE session_id = ${message.sessionId} ORDER BY seq DESC LIMIT 1`
            const rows = yield* sql<MessageRow>`INSERT INTO acx_emulator_messages
                (id, session_id, parent_id, role, meta, parts, task_process_status, created_at, updated_at)
              VALUES (${message.id}, ${message.sessionId}, ${last[0]?.id ?? null}, ${message.role},
                ${JSON.stringify(message.meta)}, ${JSON.stringify(message.parts)}, ${message.taskProcessStatus},
                ${message.createdAt}, ${message.updatedAt})
              RETURNING *`
            return fromMessageRow(rows[0]!)
          })
        ).pipe(Effect.orDie),
      listMessages: (sessionId) =>
        sql<MessageRow>`SELECT * FROM acx_emulator_messages WHERE session_id = ${sessionId} ORDER BY seq`.pipe(
          Effect.map((rows) => rows.map(fromMessageRow)),
          Effect.orDie
        )
    }
    return store
  })
