/**
 * The team memory's side in the local SQLite database: which projects are shared (a working
 * directory and its git remote), the push watermarks (in `memory_meta`), the outbox of forgotten
 * states, and the pulled entries written with their watermark in one transaction.
 */
import * as Redact from "@acx/convert/Redact"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as LocalObservations from "../LocalObservations.js"
import { writeTransaction } from "../MemoryStore.js"
import type { Watermark } from "./teamPostgres.js"
import type { TeamShape, Wire } from "./teamShapes.js"
import { wireColumns } from "./teamShapes.js"
import * as Withhold from "./teamWithhold.js"

/** A local row read for a push: its id, its (possibly unset) uid, its working directory. */
export type LocalRow = Record<string, string | number | null> & {
  readonly id: number
  readonly uid: string | null
  readonly project: string
  readonly forgotten_at: number | null
}

/**
 * Records each working directory's project identity (its git remote, from `identify`), for
 * every project the memory knows, and returns the shared ones (path → identity). A directory with
 * no remote is not shared and has no row.
 */
export const mapProjects = (identify: (path: string) => string | undefined) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ project: string }>`
      SELECT project FROM memory_sessions UNION SELECT path AS project FROM memory_team_projects`
    const shared = new Map<string, string>()
    for (const { project } of rows) {
      if (!project.startsWith("/")) continue
      const identity = identify(project)
      // a path names no shared project: only a remote does (`ProjectIdentity`)
      if (identity !== undefined && !identity.startsWith("/")) shared.set(project, identity)
    }
    yield* writeTransaction(Effect.gen(function*() {
      yield* sql`DELETE FROM memory_team_projects`
      for (const [path, identity] of shared) {
        yield* sql`INSERT INTO memory_team_projects (path, identity) VALUES (${path}, ${identity})`
      }
    }))
    return shared
  })

const metaKey = (what: string, target: string) => `team.${what} ${target}`

/** A number kept in `memory_meta` (0 when unset). */
export const readMark = (what: string, target: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ value: string }>`SELECT value FROM memory_meta WHERE key = ${metaKey(what, target)}`
    const value = Number(rows[0]?.value ?? 0)
    return Number.isFinite(value) ? value : 0
  })

/** Moves a number kept in `memory_meta` forward (never back: two syncs may race). */
export const advanceMark = (what: string, target: string, value: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`INSERT INTO memory_meta (key, value) VALUES (${metaKey(what, target)}, ${String(value)})
      ON CONFLICT (key) DO UPDATE SET value = excluded.value
      WHERE CAST(memory_meta.value AS INTEGER) < CAST(excluded.value AS INTEGER)`
  )

/** Sets a value kept in `memory_meta` (the sync's state, for the hook and `status`). */
export const setMeta = (key: string, value: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO memory_meta (key, value) VALUES (${key}, ${value})
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`)

/** One's own entries after `after` (teammates' have an author), oldest first. */
export const ownAfter = (shape: TeamShape, after: number, limit: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const columns = wireColumns(shape).filter((column) => !["author", "machine"].includes(column))
    return sql.unsafe<LocalRow>(
      `SELECT id, ${columns.join(", ")} FROM ${shape.local} WHERE id > ? AND author IS NULL ORDER BY id LIMIT ?`,
      [after, limit]
    )
  })

/** Gives the entries `ids` a uid where they have none; every one's uid. */
export const giveUids = (shape: TeamShape, ids: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    if (ids.length === 0) return new Map<number, string>()
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE ${sql(shape.local)} SET uid = lower(hex(randomblob(16)))
      WHERE uid IS NULL AND ${sql.in("id", ids)}`
    const rows = yield* sql<{ id: number; uid: string }>`SELECT id, uid FROM ${sql(shape.local)} WHERE ${
      sql.in("id", ids)
    }`
    return new Map(rows.map((row) => [row.id, row.uid]))
  })

// NUL and lone surrogates cannot be stored in Postgres text or jsonb
const storable = (text: string): string =>
  text.replace(/\u0000/g, "\uFFFD").replace(
    /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    "\uFFFD"
  )

/** What leaves the machine: `<private>` parts removed and secrets redacted, whatever the row holds. */
export const clean = (text: string): string => Redact.text(storable(text))

/** What of a list leaves: a file under the project named from its root, any other text withheld where verbatim. */
const cleanList = (json: unknown, root: string, paths: boolean, verbatim: Withhold.Verbatim) => {
  let list: unknown
  try {
    list = JSON.parse(String(json ?? "[]"))
  } catch {
    list = []
  }
  const items = Array.isArray(list) ? list.filter((item): item is string => typeof item === "string") : []
  let runs = 0
  const shared = items.map((item) => {
    // a file under the project is named from its root: the teammate's clone is elsewhere
    const named = clean(item.startsWith(`${root}/`) ? item.slice(root.length + 1) : item)
    // a file the session's tools named goes as it is; anything else written there is a text
    if (paths && (verbatim.files.has(item) || verbatim.files.has(`${root}/${named}`))) return named
    const withheld = Withhold.withhold(named, verbatim)
    runs += withheld.runs
    return withheld.text
  })
  return { json: JSON.stringify(shared), runs }
}

/**
 * A local row as it leaves the machine: cleaned, every run of its session's prompts and tool
 * inputs withheld, under its project's identity, marked with its author; `runs` withheld.
 */
export const toWire = (
  shape: TeamShape,
  row: LocalRow,
  sharing: {
    readonly uid: string
    readonly identity: string
    readonly user: string
    readonly machine: string
    readonly verbatim: Withhold.Verbatim
  }
): { readonly wire: Wire; readonly runs: number } => {
  const source = row["source"] === "model" ? "model" : "local"
  const wire: Wire = {
    uid: sharing.uid,
    project: sharing.identity,
    author: sharing.user,
    machine: sharing.machine,
    session_id: clean(String(row["session_id"])),
    source,
    created_at: Number(row["created_at"]),
    forgotten_at: null
  }
  let runs = 0
  for (const text of shape.texts) {
    const value = row[text.name]
    if (value === null || value === undefined) {
      wire[text.name] = text.nullable ? null : ""
      continue
    }
    // what the local observer copies from the prompts as they were typed never leaves
    const typed = source === "local" && shape.kind === "summary" && LocalObservations.PROMPT_FIELDS.includes(text.name)
    const withheld = Withhold.withhold(typed ? "" : clean(String(value)), sharing.verbatim)
    wire[text.name] = withheld.text
    runs += withheld.runs
  }
  for (const list of shape.lists) {
    const cleaned = cleanList(row[list], row.project, shape.paths.includes(list), sharing.verbatim)
    wire[list] = cleaned.json
    runs += cleaned.runs
  }
  return { wire, runs }
}

/**
 * Whether a local row stays on this machine: an observation the local observer made of the
 * user's prompts or commands (`LocalObservations.isVerbatim`).
 */
export const staysLocal = (shape: TeamShape, row: LocalRow): boolean => {
  if (shape.kind !== "observation") return false
  let concepts: unknown
  try {
    concepts = JSON.parse(String(row["concepts"] ?? "[]"))
  } catch {
    concepts = []
  }
  return LocalObservations.isVerbatim({
    source: String(row["source"]),
    concepts: Array.isArray(concepts) ? concepts.filter((item): item is string => typeof item === "string") : []
  })
}

/**
 * The prompts and tool inputs of a session as this machine holds them (its queued events and
 * its prompts), as one index: what a push withholds from the session's entries.
 */
export const verbatimOf = (sessionId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const prompts = yield* sql<{ text: string }>`SELECT text FROM memory_prompts WHERE session_id = ${sessionId}`
    const events = yield* sql<{ kind: string; payload: string }>`SELECT kind, payload FROM memory_events
      WHERE session_id = ${sessionId} AND kind IN ('prompt', 'tool', 'tool_failure')`
    const texts = prompts.map((row) => row.text)
    const files: Array<string> = []
    for (const event of events) {
      let payload: unknown
      try {
        payload = JSON.parse(event.payload)
      } catch {
        // an event that is not JSON is compared whole
        texts.push(event.payload)
        continue
      }
      const fields = typeof payload === "object" && payload !== null ? payload as Record<string, unknown> : {}
      if (typeof fields["prompt"] === "string") texts.push(fields["prompt"])
      Withhold.inputTexts(fields["tool_input"], texts, files)
    }
    return Withhold.index(texts, files)
  })

/** The outbox's oldest changes: forgotten states of shared entries to push. */
export const outbox = (limit: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ id: number; kind: string; uid: string; forgottenAt: number | null }>`
      SELECT id, kind, uid, forgotten_at AS forgottenAt FROM memory_team_outbox ORDER BY id LIMIT ${limit}`
  )

/** Marks outbox changes pushed: removed, and the pushed state recorded as the team's. */
export const outboxPushed = (
  shape: (kind: string) => TeamShape | undefined,
  changes: ReadonlyArray<
    { readonly id: number; readonly kind: string; readonly uid: string; readonly forgottenAt: number | null }
  >
) =>
  writeTransaction(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.forEach(changes, (change) =>
        Effect.gen(function*() {
          yield* sql`DELETE FROM memory_team_outbox WHERE id = ${change.id}`
          const local = shape(change.kind)?.local
          if (local !== undefined) {
            yield* sql`UPDATE ${sql(local)} SET team_forgotten = ${change.forgottenAt} WHERE uid = ${change.uid}`
          }
        }), { discard: true }))
  )

/** The pull watermark of a project's entries of one kind. */
export const pullMark = (target: string, identity: string, kind: string) =>
  Effect.map(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<Watermark>`SELECT txid, uid FROM memory_team_pulls
        WHERE target = ${target} AND identity = ${identity} AND kind = ${kind}`),
    (rows): Watermark | undefined => rows[0]
  )

const text = (value: unknown, fallback: string | null): string | null => typeof value === "string" ? value : fallback

const finite = (value: unknown, fallback: number | null): number | null =>
  typeof value === "number" && Number.isFinite(value) ? value : fallback

/**
 * Writes pulled entries and the new watermark in one transaction. An entry already here (by uid:
 * one's own pushed back, or pulled before) only takes the team's forgotten state, and only when
 * no local change of it waits to be pushed.
 */
export const applyPulled = (
  shape: TeamShape,
  target: string,
  identity: string,
  rows: ReadonlyArray<Wire>,
  mark: Watermark
) =>
  writeTransaction(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = [
      "session_id",
      "project",
      ...shape.texts.map((column) => column.name),
      ...shape.lists,
      "source",
      "created_at",
      "uid",
      "author",
      "machine",
      "forgotten_at",
      "team_forgotten"
    ]
    const statement = `INSERT INTO ${shape.local} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})
      ON CONFLICT (uid) WHERE uid IS NOT NULL DO UPDATE
      SET forgotten_at = excluded.forgotten_at, team_forgotten = excluded.team_forgotten
      WHERE ${shape.local}.forgotten_at IS ${shape.local}.team_forgotten`
    for (const row of rows) {
      const forgotten = finite(row["forgotten_at"], null)
      yield* sql.unsafe(statement, [
        text(row["session_id"], "")!,
        identity,
        ...shape.texts.map((column) => text(row[column.name], column.nullable ? null : "")),
        ...shape.lists.map((list) => text(row[list], "[]")),
        row["source"] === "model" ? "model" : "local",
        finite(row["created_at"], Date.now())!,
        text(row["uid"], "")!,
        text(row["author"], "unknown"),
        text(row["machine"], "unknown"),
        forgotten,
        forgotten
      ])
    }
    yield* sql`INSERT INTO memory_team_pulls (target, identity, kind, txid, uid)
      VALUES (${target}, ${identity}, ${shape.kind}, ${mark.txid}, ${mark.uid})
      ON CONFLICT (target, identity, kind) DO UPDATE SET txid = excluded.txid, uid = excluded.uid`
  }))

/** A value kept in `memory_meta`, if any. */
export const getMeta = (key: string) =>
  Effect.map(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ value: string }>`SELECT value FROM memory_meta WHERE key = ${key}`),
    (rows) =>
      rows[0]?.value
  )

/** Removes a value kept in `memory_meta`. */
export const deleteMeta = (key: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM memory_meta WHERE key = ${key}`)

/** The sync's state and counts, for `status`. */
export const state = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const meta = yield* sql<{ key: string; value: string }>`
    SELECT key, value FROM memory_meta WHERE key IN ('team.syncedAt', 'team.lastError')`
  const value = (key: string) => meta.find((row) => row.key === key)?.value
  const [counts] = yield* sql<{ shared: number; fromTeammates: number; waiting: number }>`SELECT
    (SELECT count(*) FROM memory_observations WHERE uid IS NOT NULL AND author IS NULL)
      + (SELECT count(*) FROM memory_summaries WHERE uid IS NOT NULL AND author IS NULL) AS shared,
    (SELECT count(*) FROM memory_observations WHERE author IS NOT NULL)
      + (SELECT count(*) FROM memory_summaries WHERE author IS NOT NULL) AS fromTeammates,
    (SELECT count(*) FROM memory_team_outbox) AS waiting`
  const syncedAt = Number(value("team.syncedAt"))
  return {
    syncedAt: Number.isFinite(syncedAt) && syncedAt > 0 ? syncedAt : null,
    lastError: value("team.lastError") || null,
    shared: counts?.shared ?? 0,
    fromTeammates: counts?.fromTeammates ?? 0,
    waiting: counts?.waiting ?? 0
  }
})
