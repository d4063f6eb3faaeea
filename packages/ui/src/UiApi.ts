/**
 * The JSON the page's sessions list reads (`GET /api/sessions`, `GET /api/sessions/usage`): the
 * shapes the server writes and the browser code imports (types only). The session, costs and
 * memory pages have theirs beside the modules that build them.
 *
 * @since 0.1.0
 */
import type * as SessionListing from "@acx/claude-code/SessionListing"
import type * as StatsReport from "@acx/convert/StatsReport"

/**
 * A project: its directory under `projects/`, and the name shown, taken from the `cwd` its
 * entries were written in (the directory name's encoding loses information).
 *
 * @since 0.1.0
 * @category models
 */
export interface ProjectRow {
  readonly projectKey: string
  /** The last path segment of `cwd`, else the directory name. */
  readonly name: string
  readonly cwd: string | null
  readonly sessions: number
}

/**
 * A session as listed: a row of `acx sessions --json` (`SessionListing.ListedSession`; fields
 * a session does not have are absent, never `null`).
 *
 * @since 0.1.0
 * @category models
 */
export type SessionRow = SessionListing.ListedSession

/**
 * `GET /api/sessions?offset=&limit=&project=&projectId=&machine=&user=&q=`: a page of the
 * sessions, last active first, that match every filter given: `project` (a project key),
 * `projectId` (a project across machines), `machine`, `user` (as the response shows them:
 * masked unless `mask=0`), and `q`, words that must all appear in the id, title, first prompt,
 * `cwd` or branch. `offset` (default 0) and `limit` (1 to `SessionList.MAX_LIMIT`) choose the page,
 * from the list the server keeps (the first request waits for it to be built); without `limit`,
 * every matching session from `offset`, from a listing started after the request. Any other
 * `offset` or `limit` is a `400`.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionsResponse {
  readonly configDir: string
  /** Every project of the list (not only the page's). */
  readonly projects: ReadonlyArray<ProjectRow>
  /** How many sessions the list holds. */
  readonly total: number
  /** How many of them match the filters. */
  readonly matched: number
  /** The page's first row's place among the matching sessions. */
  readonly offset: number
  /** The page. */
  readonly sessions: ReadonlyArray<SessionRow>
  /**
   * Where the sessions came from, by `projectKey/sessionId`: machine, OS user and project across
   * machines (a store's recorded origins; this machine for a config directory). A session of a
   * store without one is absent (the page shows it as `unknown`).
   */
  readonly origins: { readonly [session: string]: StatsReport.Origin }
  /** The machines and the OS users of every session of the list, sorted (`unknown` for none recorded). */
  readonly machines: ReadonlyArray<string>
  readonly users: ReadonlyArray<string>
}

/**
 * One session's figure, its subagents included, from the same folds as `acx stats` (each API
 * message once): the list, the costs page and the session page's header all show this one.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionFigure {
  /** User prompts and assistant messages. */
  readonly messages: number
  readonly tokens: number
  readonly costUSD: number
  /** Models used without a price: the cost leaves them out. */
  readonly unpriced: ReadonlyArray<string>
}

/**
 * One session's usage, from the same folds as `acx stats` (each API message once).
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionUsage extends SessionFigure {
  readonly sessionId: string
  /** Costs far more than the project's usual session (see `CostOutliers`). */
  readonly outlier: boolean
}

/**
 * `GET /api/sessions/usage`: every session's usage, folded in worker threads and cached; slower
 * than the list on a cold cache, so the page asks for it after the list.
 *
 * @since 0.1.0
 * @category models
 */
export interface UsageResponse {
  readonly sessions: ReadonlyArray<SessionUsage>
  readonly pricing: { readonly source: string; readonly date: string }
}

/**
 * `GET /api/sessions/events`: server-sent events; each `data:` says the list may have changed
 * (over a store: its clock moved; over a config directory: the listing started when the stream
 * opened found other rows), and the page reads `/api/sessions` again.
 *
 * @since 0.3.0
 * @category models
 */
export interface SessionsEvent {
  /**
   * `changed`: read the list again; `reconnecting`: the store's notifications were cut (a
   * Postgres restart), the server is reconnecting and says `changed` once it is back.
   */
  readonly type: "changed" | "reconnecting"
}

/**
 * A piece of a search hit's snippet: text as written (masked), and whether it is a matched word.
 *
 * @since 0.3.0
 * @category models
 */
export interface SnippetPart {
  readonly text: string
  readonly match: boolean
}

/**
 * One hit of the search box: the session it is in, who wrote the text, when, the turn to open
 * (`#/session/<id>?turn=<turn>`) and the snippet around the first match.
 *
 * @since 0.3.0
 * @category models
 */
export interface SearchHitRow {
  readonly sessionId: string
  readonly projectKey: string
  /** The last segment of the session's `cwd`, else its project key. */
  readonly project: string
  /** The session's title, else its first prompt. */
  readonly title: string | null
  readonly role: "user" | "assistant" | "tool"
  /** ISO 8601. */
  readonly time: string | null
  /** The entry's uuid. */
  readonly turn: string | null
  /** When the text is in a subagent's transcript: its agent id (the page opens its Task call). */
  readonly agentId: string | null
  readonly snippet: ReadonlyArray<SnippetPart>
}

/**
 * `GET /api/search?q=&project=&role=&limit=`: the best hits first, from a store's full-text
 * index; without an index, `indexed: false` and what to do about it. A query the engine cannot
 * search is a 400 with the problem.
 *
 * @since 0.3.0
 * @category models
 */
export type SearchResponse =
  | {
    readonly indexed: true
    /** The index searched (a store, no password). */
    readonly location: string
    readonly hits: ReadonlyArray<SearchHitRow>
    /** How long the search took on the server, in milliseconds (also `Server-Timing: search`). */
    readonly ms: number
  }
  | { readonly indexed: false; readonly message: string }
