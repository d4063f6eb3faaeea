/**
 * What a SQL session store knows about its sessions without reading their entries again: the
 * rows `SessionDerive` keeps beside the entries. They are derived behind a per-key watermark that
 * every read advances first (in a write transaction, like an append), so a read sees every entry
 * appended before it, whoever appended it (acx's import, the SDK's own `sessionStore` mirroring,
 * an older acx), and appends cost nothing more. Per session its listing metadata and counts,
 * per API message its usage, and a full-text index of prompts, assistant text, thinking, tool
 * inputs and tool results. `catalogOf(store)` finds it on the SQLite and Postgres stores.
 *
 * The catalog derives from the entries as stored (`acx sync` and `acx import` mask secrets before
 * they store them; the SDK's own mirroring stores what it is given), and a reader applies its
 * mask to snippets and rows too, so a store filled otherwise shows no secret either.
 *
 * @since 0.2.0
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import type * as SearchQuery from "./SearchQuery.js"
import type * as SessionStore from "./SessionStore.js"

const optionalString = Schema.optionalWith(Schema.String, { exact: true })
const optionalNumber = Schema.optionalWith(Schema.Number, { exact: true })

/**
 * One session of a store: `@acx/convert/SessionMetadata` of its main transcript (the fields of
 * `@acx/claude-code`'s `ListedSession` that come from entries, with the same names), and its
 * counts over the main transcript and its subagents. Absent fields are left out, never `null`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const StoredSession = Schema.Struct({
  projectKey: Schema.String,
  sessionId: Schema.String,
  /** The store clock's epoch ms of the session's last append (any of its transcripts). */
  mtime: Schema.Number,
  title: optionalString,
  firstPrompt: optionalString,
  lastPrompt: optionalString,
  cwd: optionalString,
  gitBranch: optionalString,
  /** ISO 8601 as written: the main transcript's first entry time. */
  startTime: optionalString,
  /** ISO 8601 as written: the main transcript's last entry time. */
  lastTime: optionalString,
  /** The newest entry time (epoch ms) over the main transcript and its subagents. */
  lastActivityMs: optionalNumber,
  entries: Schema.Number,
  /** User messages as `acx stats` counts them (no meta entries, compact summaries, tool results). */
  userMessages: Schema.Number,
  /** API messages, each once (its fragments share `message.id` + `requestId`). */
  assistantMessages: Schema.Number,
  toolCalls: Schema.Number,
  /** Subagent transcripts. */
  subagents: Schema.Number
}).annotations({ identifier: "StoredSession" })

/**
 * @since 0.2.0
 * @category models
 */
export type StoredSession = typeof StoredSession.Type

/**
 * The tokens and dollars of one API message (`StatsFold.ModelCell`; dollars by acx's built-in
 * prices when the message was stored).
 *
 * @since 0.2.0
 * @category schemas
 */
export const MessageTokens = Schema.Struct({
  input: Schema.Number,
  output: Schema.Number,
  cacheRead: Schema.Number,
  cacheWrite5m: Schema.Number,
  cacheWrite1h: Schema.Number,
  webSearchRequests: Schema.Number,
  costUSD: Schema.Number
}).annotations({ identifier: "MessageTokens" })

/**
 * One API message's usage. `model` and `tokens` are present when the message counts (as
 * `acx stats` counts it): absent for Claude Code's `<synthetic>` messages and before any fragment
 * carried usage.
 *
 * @since 0.2.0
 * @category schemas
 */
export const MessageUsageRow = Schema.Struct({
  projectKey: Schema.String,
  sessionId: Schema.String,
  /** `""` for the main transcript, else the subagent's subpath. */
  subpath: Schema.String,
  messageId: optionalString,
  requestId: optionalString,
  model: optionalString,
  /** The first fragment's entry uuid and time (epoch ms). */
  uuid: optionalString,
  timeMs: optionalNumber,
  tokens: Schema.optionalWith(MessageTokens, { exact: true })
}).annotations({ identifier: "MessageUsageRow" })

/**
 * @since 0.2.0
 * @category models
 */
export type MessageUsageRow = typeof MessageUsageRow.Type

/**
 * Who a text is from.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Role = Schema.Literal("user", "assistant", "tool")

/**
 * One search hit: where it is and a snippet with the matched words marked.
 *
 * @since 0.2.0
 * @category schemas
 */
export const SearchHit = Schema.Struct({
  projectKey: Schema.String,
  sessionId: Schema.String,
  subpath: Schema.String,
  /** The entry's uuid (the turn to open). */
  uuid: optionalString,
  role: Role,
  timeMs: optionalNumber,
  snippet: Schema.String,
  /** The engine's relevance, higher is better (comparable within one result only). */
  score: Schema.Number
}).annotations({ identifier: "SearchHit" })

/**
 * @since 0.2.0
 * @category models
 */
export type SearchHit = typeof SearchHit.Type

/**
 * @since 0.2.0
 * @category models
 */
export interface SessionFilter {
  readonly projectKey?: string | undefined
  /** Sessions active at or after this epoch ms (last activity, else the store mtime). */
  readonly since?: number | undefined
  readonly sessionId?: string | undefined
  /**
   * These sessions only (those of them the store has): one read for the sessions of a page of
   * search hits, instead of one read each.
   *
   * @since 0.4.0
   */
  readonly sessions?: ReadonlyArray<SessionKeyOf> | undefined
}

/**
 * A session named by its key.
 *
 * @since 0.4.0
 * @category models
 */
export interface SessionKeyOf {
  readonly projectKey: string
  readonly sessionId: string
}

/**
 * @since 0.2.0
 * @category models
 */
export interface UsageFilter {
  readonly projectKey?: string | undefined
  readonly sessionId?: string | undefined
  /** Messages whose first fragment is at or after this epoch ms. */
  readonly since?: number | undefined
}

/**
 * @since 0.2.0
 * @category models
 */
export interface SearchOptions {
  readonly projectKey?: string | undefined
  /** Texts at or after this epoch ms. */
  readonly since?: number | undefined
  readonly role?: typeof Role.Type | undefined
  /** At most this many hits (default 20, at most {@link MAX_LIMIT}). */
  readonly limit?: number | undefined
  /** Delimiters around each matched word of the snippet (default `**`). */
  readonly open?: string | undefined
  readonly close?: string | undefined
  /**
   * Applied to each matched field before its snippet is cut (a reader's secret mask): a secret
   * is masked whole, then cut, so a snippet's window never shows half of one, and the match
   * marks never land inside one (where they would break its shape for the mask).
   */
  readonly mask?: ((text: string) => string) | undefined
}

/**
 * The most hits one search returns.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_LIMIT = 500

/**
 * The limit a search runs with: the option as a whole number in 1..{@link MAX_LIMIT}, else 20.
 *
 * @since 0.2.0
 * @category constants
 */
export const limitOf = (limit: number | undefined): number =>
  limit === undefined || !Number.isFinite(limit) ? 20 : Math.min(MAX_LIMIT, Math.max(1, Math.floor(limit)))

/**
 * At most this many matches are ranked (`limit` when larger): the newest that pass the filters,
 * found unranked in append order (text row ids). Ranking costs per match (bm25's statistics,
 * `ts_rank` over a stored `tsvector`), and a common word matches most texts of a store: ranking
 * all of them took hundreds of milliseconds on SQLite and over a second on Postgres for a 550 MB
 * store, ranking 2 000 takes a few. The price: an old match of a word with more than this many
 * matches is not ranked, however relevant, so it may be missed; a rare word (fewer matches, what
 * a search is usually for) ranks all of its matches. 2 000 is a hundred pages of 20 hits, about
 * 1 % of the texts of that store (docs/design.md, "Derived data in the SQL stores").
 *
 * @since 0.3.0
 * @category constants
 */
export const SEARCH_CANDIDATES = 2000

/**
 * How many matches a search ranks: {@link SEARCH_CANDIDATES}, or `limit` when larger.
 *
 * @since 0.3.0
 * @category constants
 */
export const candidatesOf = (limit: number): number => Math.max(limit, SEARCH_CANDIDATES)

/**
 * The read side of a store's derived data.
 *
 * @since 0.2.0
 * @category models
 */
export interface StoreCatalog {
  /**
   * Derives what was appended since the last read (every read does this first); how many entries.
   * For a writer that wants the next read fast, e.g. at the end of an import.
   */
  readonly refresh: () => Effect.Effect<number, SessionStore.SessionStoreError>
  /** Sessions with a main transcript, in {@link byLastActivity} order. */
  readonly listSessions: (
    filter?: SessionFilter
  ) => Effect.Effect<ReadonlyArray<StoredSession>, SessionStore.SessionStoreError>
  /** Every API message's usage, in append order. */
  readonly usage: (
    filter?: UsageFilter
  ) => Effect.Effect<ReadonlyArray<MessageUsageRow>, SessionStore.SessionStoreError>
  /**
   * The store clock: the last mtime it handed out (0 for a store nothing was written to). Every
   * append and every `delete` moves it forward (strictly increasing), whoever wrote: a reader
   * that follows a store compares it with the last value it read (one row read, nothing derived).
   * (Retention, `deleteOlderThan`, does not move it.)
   */
  readonly clock: () => Effect.Effect<number, SessionStore.SessionStoreError>
  /**
   * While consumed, when the clock may have moved, as the server announces it (a Postgres store
   * opened from its URL: `LISTEN` on a connection of its own): `changed` (a writer committed, or
   * the listener is listening again after a loss: read the clock), or `lost` (the connection went;
   * it reconnects, waiting at most 2 s between attempts). Absent: nothing announces it (SQLite;
   * a Postgres store on an application's own client): read the clock to know.
   */
  readonly changes?: Stream.Stream<"changed" | "lost"> | undefined
  /**
   * Ranked hits for a query (see `SearchQuery` for its syntax): the best of the newest
   * {@link SEARCH_CANDIDATES} matches that pass the filters, best first.
   */
  readonly search: (
    query: string,
    options?: SearchOptions
  ) => Effect.Effect<ReadonlyArray<SearchHit>, SessionStore.SessionStoreError | SearchQuery.SearchQueryError>
}

/**
 * A store with its catalog.
 *
 * @since 0.2.0
 * @category models
 */
export interface WithCatalog {
  readonly catalog: StoreCatalog
}

/**
 * The catalog of a store that keeps one (the SQLite and Postgres stores), else `undefined`.
 *
 * @since 0.2.0
 * @category accessors
 */
export const catalogOf = (store: SessionStore.SessionStore): StoreCatalog | undefined => {
  const candidate = (store as Partial<WithCatalog>).catalog
  return candidate !== undefined && typeof candidate.search === "function" ? candidate : undefined
}

/**
 * When a session was last active, as `acx sessions` orders the config dir (`@acx/claude-code`
 * `SessionListing.lastActivity`): its main transcript's last entry time, else the store mtime.
 *
 * @since 0.2.0
 * @category ordering
 */
export const lastActivity = (session: Pick<StoredSession, "lastTime" | "mtime">): number => {
  const written = session.lastTime === undefined ? Number.NaN : Date.parse(session.lastTime)
  return Number.isNaN(written) ? session.mtime : written
}

/**
 * The order of a catalog's sessions, the listing's: last active first, ties by session id.
 *
 * @since 0.2.0
 * @category ordering
 */
export const byLastActivity = (a: StoredSession, b: StoredSession): number =>
  lastActivity(b) - lastActivity(a) || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0)

/**
 * Sessions in {@link byLastActivity} order, each one's time parsed once (not at every comparison:
 * a hub lists thousands).
 *
 * @since 0.4.0
 * @category ordering
 */
export const sortByLastActivity = (sessions: ReadonlyArray<StoredSession>): Array<StoredSession> =>
  sessions.map((session) => ({ session, at: lastActivity(session) }))
    .sort((a, b) =>
      b.at - a.at ||
      (a.session.sessionId < b.session.sessionId ? -1 : a.session.sessionId > b.session.sessionId ? 1 : 0)
    )
    .map(({ session }) => session)
