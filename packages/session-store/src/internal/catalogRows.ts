/**
 * The derived tables' rows as the catalog hands them out, shared by the SQLite and Postgres
 * stores (column names are the same in both; numbers may come back as strings from Postgres).
 */
import type * as StatsFold from "@acx/convert/StatsFold"
import * as Effect from "effect/Effect"
import * as SearchQuery from "../SearchQuery.js"
import type * as SessionDerive from "../SessionDerive.js"
import type * as SessionOrigins from "../SessionOrigins.js"
import type * as SessionStore from "../SessionStore.js"
import type * as StoreCatalog from "../StoreCatalog.js"
import type { NullableNum, Num } from "../StoreCatalogSql.js"

// the meta rows' mapping lives with the statements a reader without Effect shares
export { type MetaRow, stateOf, storedSessionOf } from "../StoreCatalogSql.js"

/** A row of `acx_session_usage`, with its key's project, session and subpath. */
export interface UsageRow {
  readonly project_key: string
  readonly session_id: string
  readonly subpath: string
  readonly message_key: string
  readonly message_id: string | null
  readonly request_id: string | null
  readonly model: string | null
  readonly time_ms: NullableNum
  readonly uuid: string | null
  readonly input: NullableNum
  readonly output: NullableNum
  readonly cache_read: NullableNum
  readonly cache_write_5m: NullableNum
  readonly cache_write_1h: NullableNum
  readonly web_search_requests: NullableNum
  readonly cost_usd: NullableNum
}

/** A search candidate: the text row and its stored field. */
export interface HitRow {
  readonly project_key: string
  readonly session_id: string
  readonly subpath: string
  readonly uuid: string | null
  readonly role: string
  readonly time_ms: NullableNum
  readonly body: string
  readonly score: Num
}

const num = (value: NullableNum): number | undefined => value === null ? undefined : Number(value)

/** A message's usage as the usage table's columns (its figures `null` when it counts nothing). */
export const usageColumns = (usage: SessionDerive.MessageUsage) => {
  const cell = usage.model === null ? null : usage.cell
  return {
    message_key: usage.messageKey,
    message_id: usage.messageId,
    request_id: usage.requestId,
    model: usage.model,
    time_ms: usage.timeMs,
    uuid: usage.uuid,
    input: cell?.input ?? null,
    output: cell?.output ?? null,
    cache_read: cell?.cacheRead ?? null,
    cache_write_5m: cell?.cacheWrite5m ?? null,
    cache_write_1h: cell?.cacheWrite1h ?? null,
    web_search_requests: cell?.webSearchRequests ?? null,
    cost_usd: cell?.costUSD ?? null
  }
}

const cellOf = (row: UsageRow): StatsFold.ModelCell | null =>
  row.input === null ? null : {
    messages: 1,
    input: Number(row.input),
    output: Number(row.output ?? 0),
    cacheRead: Number(row.cache_read ?? 0),
    cacheWrite5m: Number(row.cache_write_5m ?? 0),
    cacheWrite1h: Number(row.cache_write_1h ?? 0),
    webSearchRequests: Number(row.web_search_requests ?? 0),
    costUSD: Number(row.cost_usd ?? 0)
  }

/** A stored usage row as the fold's previous figures. */
export const messageUsageOf = (row: UsageRow): SessionDerive.MessageUsage => ({
  messageKey: row.message_key,
  messageId: row.message_id,
  requestId: row.request_id,
  model: row.model,
  cell: cellOf(row),
  timeMs: num(row.time_ms) ?? null,
  uuid: row.uuid
})

const tokensOf = ({ messages: _, ...tokens }: StatsFold.ModelCell): typeof StoreCatalog.MessageTokens.Type => tokens

const present = <K extends string>(key: K, value: string | null): { [P in K]?: string } =>
  (value === null ? {} : { [key]: value }) as { [P in K]?: string }

export const usageRowOf = (row: UsageRow): StoreCatalog.MessageUsageRow => {
  const cell = cellOf(row)
  const timeMs = num(row.time_ms)
  return {
    projectKey: row.project_key,
    sessionId: row.session_id,
    subpath: row.subpath,
    ...present("messageId", row.message_id),
    ...present("requestId", row.request_id),
    ...(cell === null ? {} : present("model", row.model)),
    ...present("uuid", row.uuid),
    ...(timeMs === undefined ? {} : { timeMs }),
    ...(cell === null || row.model === null ? {} : { tokens: tokensOf(cell) })
  }
}

export const hitOf = (
  row: HitRow,
  query: SearchQuery.Query,
  options: StoreCatalog.SearchOptions
): StoreCatalog.SearchHit => {
  const timeMs = num(row.time_ms)
  return {
    projectKey: row.project_key,
    sessionId: row.session_id,
    subpath: row.subpath,
    ...present("uuid", row.uuid),
    role: row.role as StoreCatalog.SearchHit["role"],
    ...(timeMs === undefined ? {} : { timeMs }),
    snippet: SearchQuery.snippet(options.mask === undefined ? row.body : options.mask(row.body), query, {
      open: options.open ?? "**",
      close: options.close ?? "**"
    }),
    score: Number(row.score)
  }
}

// A stored row as an entry, or nothing when it is not one (corrupt rows derive nothing, as `load` skips them).
const entryOf = (text: string): SessionStore.SessionStoreEntry | undefined => {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null && !Array.isArray(value) &&
        typeof (value as { type?: unknown }).type === "string"
      ? value as SessionStore.SessionStoreEntry
      : undefined
  } catch {
    return undefined
  }
}

/**
 * Keys derived per write transaction of a catalog's catch-up, at most, and entries, about (a key
 * is never split over two): the search index builds in bulk over many keys' texts (SQLite's flushes
 * its pending terms once per transaction, not once per key), a transaction's fixed cost is paid
 * once for many keys, and it still holds the write lock briefly.
 */
export const DERIVE_TRANSACTION_KEYS = 16
/** See {@link DERIVE_TRANSACTION_KEYS}. */
export const DERIVE_TRANSACTION_ENTRIES = 10_000

/**
 * Derives one key's entries after its watermark, chunk by chunk: `read(after)` gives the next
 * stored rows in id order (empty at the end), `write(entries, first, chunk)` derives them
 * (`first`: the key's first derivation, which `write` gets even when the key holds no entry;
 * `chunk`: unique within the key, the watermark before it, for `SessionDerive.derive`'s `batchId`). The new
 * watermark, and how many rows were read.
 */
export const deriveChunks = <E, R>(
  start: { readonly after: number; readonly first: boolean },
  read: (after: number) => Effect.Effect<ReadonlyArray<{ readonly id: number | string; readonly entry: string }>, E, R>,
  write: (
    entries: ReadonlyArray<SessionStore.SessionStoreEntry>,
    first: boolean,
    chunk: string
  ) => Effect.Effect<void, E, R>
) =>
  Effect.gen(function*() {
    let { after, first } = start
    let count = 0
    for (;;) {
      const rows = yield* read(after)
      if (rows.length === 0 && !first) break
      const entries: Array<SessionStore.SessionStoreEntry> = []
      for (const row of rows) {
        const entry = entryOf(row.entry)
        if (entry !== undefined) entries.push(entry)
      }
      yield* write(entries, first, String(after))
      first = false
      count += rows.length
      if (rows.length === 0) break
      after = Number(rows[rows.length - 1]!.id)
    }
    return { after, count }
  })

/** A row of `acx_session_origin` (the same columns in both engines). */
export interface OriginRow {
  readonly project_key: string
  readonly session_id: string
  readonly machine: string
  readonly os_user: string
  readonly project: string
}

/** An origin row as `SessionOrigins` hands it out. */
export const originOfRow = (row: OriginRow): SessionOrigins.SessionOrigin => ({
  projectKey: row.project_key,
  sessionId: row.session_id,
  machine: row.machine,
  user: row.os_user,
  project: row.project
})
