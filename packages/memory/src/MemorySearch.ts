/**
 * Retrieval: full-text search over observations, session summaries and prompts (FTS5, ranked by
 * bm25, with highlighted snippets), one entry by id (`O12`, `S3`, `P7`), and a timeline of a
 * project's entries around one of them. The ids are the ones the SessionStart context shows.
 *
 * A search ranks at most the newest {@link SEARCH_CANDIDATES} matches of each kind (or `limit`,
 * when larger): bm25 costs a few microseconds a row, so ranking every match of a common word
 * over 100 000 observations took 100 ms and more, ranking the newest 500 takes about 2 ms.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import { MemoryError } from "./MemoryError.js"

/**
 * What an id names.
 *
 * @since 0.1.0
 * @category models
 */
export type EntryKind = "observation" | "summary" | "prompt"

const PREFIX: { readonly [K in EntryKind]: string } = { observation: "O", summary: "S", prompt: "P" }

/**
 * Reads `O12`, `S3`, `P7` (any case; a bare number is an observation). Total.
 *
 * @since 0.1.0
 * @category ids
 */
export const parseId = (text: string): { readonly kind: EntryKind; readonly id: number } | undefined => {
  const match = /^\s*([osp])?#?(\d{1,15})\s*$/i.exec(text)
  if (match === null) return undefined
  const letter = (match[1] ?? "o").toLowerCase()
  return { kind: letter === "s" ? "summary" : letter === "p" ? "prompt" : "observation", id: Number(match[2]) }
}

/**
 * An entry's id as shown.
 *
 * @since 0.1.0
 * @category ids
 */
export const formatId = (kind: EntryKind, id: number): string => `${PREFIX[kind]}${id}`

/**
 * The words of a query as an FTS5 expression: every word must appear (each quoted, so the
 * query language's operators and punctuation in the user's text cannot break it). Total:
 * `undefined` when there is no word.
 *
 * @since 0.1.0
 * @category search
 */
export const toMatchExpression = (query: string): string | undefined => {
  const words = query.match(/[\p{L}\p{N}_]+/gu) ?? []
  return words.length === 0 ? undefined : words.map((word) => `"${word}"`).join(" ")
}

/**
 * @since 0.1.0
 * @category models
 */
export interface SearchOptions {
  /** Only this project (an absolute path). */
  readonly project?: string | undefined
  /** Only observations of this type (or `summary` / `prompt` for those kinds only). */
  readonly type?: string | undefined
  /** Only entries from this time on (epoch ms). */
  readonly since?: number | undefined
  /** At most this many results (default 20). */
  readonly limit?: number | undefined
}

/**
 * One search result.
 *
 * @since 0.1.0
 * @category models
 */
export interface SearchResult {
  readonly id: string
  readonly kind: EntryKind
  readonly project: string
  readonly sessionId: string
  /** The observation's type, `summary` or `prompt`. */
  readonly type: string
  readonly title: string
  /** The best matching part, matches between `**`. */
  readonly snippet: string
  readonly createdAt: number
  /** bm25: lower is better. */
  readonly rank: number
}

interface Source {
  readonly kind: EntryKind
  readonly table: string
  readonly type: string
  readonly title: string
  /** Whether its rows can be forgotten (soft delete: `forgotten_at`). */
  readonly forgettable: boolean
}

const SOURCES: ReadonlyArray<Source> = [
  { kind: "observation", table: "memory_observations", type: "t.type", title: "t.title", forgettable: true },
  { kind: "summary", table: "memory_summaries", type: "'summary'", title: "t.request", forgettable: true },
  {
    kind: "prompt",
    table: "memory_prompts",
    type: "'prompt'",
    title: "substr(t.text, 1, 120)",
    forgettable: false
  }
]

/** `AND <alias>.forgotten_at IS NULL` for a table whose rows can be forgotten, else nothing. */
const remembered = (kind: EntryKind, alias: string): string =>
  kind === "prompt" ? "" : ` AND ${alias}.forgotten_at IS NULL`

const databaseError = (what: string) => (cause: SqlError) =>
  new MemoryError({ reason: "Database", description: `${what}: ${cause.message.split("\n")[0]}`, cause })

/**
 * At most this many matches of each kind are ranked (the newest; more when `limit` is larger).
 *
 * @since 0.1.0
 * @category search
 */
export const SEARCH_CANDIDATES = 500

/**
 * Searches everything the memory keeps, best matches first.
 *
 * @since 0.1.0
 * @category search
 */
export const search = Effect.fn("MemorySearch.search")(function*(query: string, options: SearchOptions = {}) {
  const match = toMatchExpression(query)
  if (match === undefined) {
    return yield* new MemoryError({ reason: "InvalidArgument", description: `nothing to search for in "${query}"` })
  }
  const limit = Math.max(1, Math.min(1000, Math.floor(options.limit ?? 20)))
  const candidates = Math.max(limit, SEARCH_CANDIDATES)
  const project = options.project ?? null
  const since = options.since ?? 0
  const sql = yield* SqlClient.SqlClient
  const sources = SOURCES.filter((source) =>
    options.type === undefined ? true : source.kind === "observation" ?
      !["summary", "prompt"].includes(options.type)
      : source.kind === options.type
  )
  const results: Array<SearchResult> = []
  for (const source of sources) {
    const fts = sql.literal(`${source.table}_fts`)
    const table = sql.literal(source.table)
    const byType = source.kind === "observation" && options.type !== undefined
    // The candidates are found without ranking, newest first. A project holding a tenth of the
    // rows or more is checked on each match's row (a few reads per candidate); a smaller one by a
    // list of its rows read from its index (checking rows would read most of the table).
    const large = project === null ? false : (yield* sql<{ readonly large: number }>`
      SELECT count(*) * 10 >= (SELECT coalesce(max(id), 0) FROM ${table}) AS large
      FROM (SELECT 1 FROM ${table} WHERE project = ${project}
        LIMIT (SELECT coalesce(max(id), 0) / 10 + 1 FROM ${table}))`.pipe(
      Effect.mapError(databaseError("searching"))
    ))[0]?.large === 1
    const inIndex = project !== null && !large
    const onRow = [
      ...(project !== null && large ? [sql`r.project = ${project}`] : []),
      ...(byType ? [sql`r.type = ${options.type}`] : []),
      ...(since > 0 && !inIndex ? [sql`r.created_at >= ${since}`] : [])
    ]
    const filters = sql.and([
      // the few forgotten rows, read once from their partial index
      ...(source.forgettable
        ? [sql`+${fts}.rowid NOT IN (SELECT id FROM ${table} WHERE forgotten_at IS NOT NULL)`]
        : []),
      // a project's rows since a time have ids from the first of them on (read from its index)
      ...(project !== null && since > 0
        ? [sql`${fts}.rowid >= (SELECT min(id) FROM ${table} WHERE project = ${project} AND created_at >= ${since})`]
        : []),
      ...(inIndex
        ? [sql`+${fts}.rowid IN (SELECT id FROM ${table} WHERE project = ${project} AND created_at >= ${since})`]
        : []),
      ...(onRow.length > 0
        ? [sql`EXISTS (SELECT 1 FROM ${table} r WHERE r.id = ${fts}.rowid AND ${sql.and(onRow)})`]
        : [])
    ])
    const rows = yield* sql<Omit<SearchResult, "id" | "kind"> & { readonly rowId: number }>`
      WITH candidates(id) AS MATERIALIZED (
        SELECT ${fts}.rowid FROM ${fts} WHERE ${fts} MATCH ${match} AND ${filters}
        ORDER BY ${fts}.rowid DESC LIMIT ${candidates}
      )
      SELECT t.id AS rowId, t.project AS project, t.session_id AS sessionId, ${sql.literal(source.type)} AS type,
        ${sql.literal(source.title)} AS title, t.created_at AS createdAt,
        snippet(${fts}, -1, '**', '**', '…', 16) AS snippet, bm25(${fts}) AS rank
      FROM ${fts} JOIN ${table} t ON t.id = ${fts}.rowid
      WHERE ${fts} MATCH ${match}
        AND ${fts}.rowid >= (SELECT min(id) FROM candidates) AND +${fts}.rowid IN (SELECT id FROM candidates)
        AND (${project} IS NULL OR t.project = ${project})
        AND ${byType ? sql`t.type = ${options.type}` : sql`1 = 1`}
        AND t.created_at >= ${since}${sql.literal(remembered(source.kind, "t"))}
      ORDER BY rank LIMIT ${limit}`.pipe(Effect.mapError(databaseError("searching")))
    for (const { rowId, ...row } of rows) results.push({ ...row, id: formatId(source.kind, rowId), kind: source.kind })
  }
  return results.sort((a, b) => a.rank - b.rank || b.createdAt - a.createdAt).slice(0, limit)
})

/**
 * An entry in full: its columns (JSON lists decoded) and its id.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly id: string
  readonly kind: EntryKind
  readonly fields: { readonly [column: string]: unknown }
}

const LIST_COLUMNS = new Set([
  "facts",
  "concepts",
  "files_read",
  "files_modified",
  "files_edited",
  "event_ids"
])

// `forgotten_at` is bookkeeping: an entry shown is never forgotten, so the column says nothing
const decodeRow = (row: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(row).filter(([column]) => column !== "forgotten_at").map(([column, value]) => {
      if (!LIST_COLUMNS.has(column) || typeof value !== "string") return [column, value]
      try {
        return [column, JSON.parse(value)]
      } catch {
        return [column, value]
      }
    })
  )

const TABLES: { readonly [K in EntryKind]: string } = {
  observation: "memory_observations",
  summary: "memory_summaries",
  prompt: "memory_prompts"
}

/**
 * Entries by id, in the order asked; unknown and forgotten ids are left out (`NotFound` only for
 * a lone id: see {@link show}).
 *
 * @since 0.1.0
 * @category reading
 */
export const get = Effect.fn("MemorySearch.get")(function*(ids: ReadonlyArray<string>) {
  const sql = yield* SqlClient.SqlClient
  const out: Array<Entry> = []
  for (const text of ids) {
    const parsed = parseId(text)
    if (parsed === undefined) continue
    const [row] = yield* sql<Record<string, unknown>>`
      SELECT * FROM ${sql.literal(TABLES[parsed.kind])} WHERE id = ${parsed.id}${
      sql.literal(remembered(parsed.kind, TABLES[parsed.kind]))
    }`.pipe(
      Effect.mapError(databaseError("reading an entry"))
    )
    if (row !== undefined) out.push({ id: formatId(parsed.kind, parsed.id), kind: parsed.kind, fields: decodeRow(row) })
  }
  return out
})

/**
 * One entry by id.
 *
 * @since 0.1.0
 * @category reading
 */
export const show = Effect.fn("MemorySearch.show")(function*(id: string) {
  if (parseId(id) === undefined) {
    return yield* new MemoryError({
      reason: "InvalidArgument",
      description: `"${id}" is not an id (O12 for an observation, S3 for a summary, P7 for a prompt)`
    })
  }
  const [entry] = yield* get([id])
  if (entry === undefined) return yield* new MemoryError({ reason: "NotFound", description: `no entry ${id}` })
  return entry
})

/**
 * A timeline entry: what happened, when.
 *
 * @since 0.1.0
 * @category models
 */
export interface TimelineEntry {
  readonly id: string
  readonly kind: EntryKind
  readonly sessionId: string
  readonly type: string
  readonly title: string
  readonly createdAt: number
}

/**
 * The entries of an entry's project around it in time: `window` before and after (default 5),
 * oldest first, the entry itself included; forgotten entries are left out.
 *
 * @since 0.1.0
 * @category reading
 */
export const timeline = Effect.fn("MemorySearch.timeline")(function*(around: string, window = 5) {
  const center = yield* show(around)
  const project = center.fields["project"] as string
  const at = center.fields["created_at"] as number
  const sql = yield* SqlClient.SqlClient
  const side = (before: boolean) =>
    Effect.forEach(SOURCES, (source) =>
      sql<Omit<TimelineEntry, "id" | "kind"> & { readonly rowId: number }>`
        SELECT t.id AS rowId, t.session_id AS sessionId, ${sql.literal(source.type)} AS type,
          ${sql.literal(source.title)} AS title, t.created_at AS createdAt
        FROM ${sql.literal(source.table)} t
        WHERE t.project = ${project}${sql.literal(remembered(source.kind, "t"))}
          AND ${sql.literal(before ? "t.created_at <= " : "t.created_at > ")}${at}
        ORDER BY t.created_at ${sql.literal(before ? "DESC" : "ASC")} LIMIT ${window + 1}`.pipe(
        Effect.map((rows) =>
          rows.map(({ rowId, ...row }): TimelineEntry => ({
            ...row,
            id: formatId(source.kind, rowId),
            kind: source.kind
          }))
        )
      )).pipe(Effect.map((lists) => lists.flat()), Effect.mapError(databaseError("reading the timeline")))
  const byTime = (a: TimelineEntry, b: TimelineEntry) => a.createdAt - b.createdAt || a.id.localeCompare(b.id)
  const before = (yield* side(true)).filter((entry) => entry.id !== center.id).sort(byTime).slice(-window)
  const after = (yield* side(false)).sort(byTime).slice(0, window)
  const self: TimelineEntry = {
    id: center.id,
    kind: center.kind,
    sessionId: center.fields["session_id"] as string,
    type: center.kind === "observation" ? center.fields["type"] as string : center.kind,
    title: String(center.fields["title"] ?? center.fields["request"] ?? center.fields["text"] ?? ""),
    createdAt: at
  }
  return [...before, self, ...after]
})
