/**
 * Two read-only MCP tools over the session store `acx sync` keeps (every conversation, kept after
 * Claude Code deletes it), served by `acx memory mcp` beside the memory's own tools:
 *
 * - `search_sessions` — full-text search inside every conversation (`SessionSearch.search`: the
 *   store's index, best matches first, secrets masked), the hits `acx search --json` prints;
 * - `get_session_turns` — a session's turns as text (`SessionTurns` over the session page's fold,
 *   texts masked, every field cut at `SessionTurns.FIELD_CAP` with the cut said), around a hit's
 *   entry uuid or from a turn number.
 *
 * Which store: {@link SessionsSource}, given by the process that runs the server (`acx memory
 * mcp [--from TARGET]`). It is opened when a tool first needs it, so the server starts as fast
 * without one, and a store that appears later (`acx sync` run after the server started) is found
 * by the next call. Every failure is the tool's error, in a sentence a model can act on.
 *
 * @since 0.3.0
 */
import * as ProjectDir from "@acx/convert/ProjectDir"
import * as SessionFold from "@acx/convert/SessionFold"
import * as SessionTurns from "@acx/convert/SessionTurns"
import * as StatsReport from "@acx/convert/StatsReport"
import * as SessionIdLookup from "@acx/environment/SessionIdLookup"
import * as SessionSearch from "@acx/session-store/SessionSearch"
import type * as SessionStore from "@acx/session-store/SessionStore"
import type * as StoreCatalog from "@acx/session-store/StoreCatalog"
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as path from "node:path"

/**
 * An open store to read: the store, its catalog, and its name without a password.
 *
 * @since 0.3.0
 * @category models
 */
export interface OpenSessions {
  readonly store: SessionStore.SessionStore
  readonly catalog: StoreCatalog.StoreCatalog
  readonly target: string
}

/**
 * Where the tools read sessions: `open` gives the store (opened on first use) or fails with a
 * sentence for the model (no store yet: run `acx sync`; cannot connect; …).
 *
 * @since 0.3.0
 * @category services
 */
export interface SessionsSource {
  readonly open: Effect.Effect<OpenSessions, string>
}

/**
 * @since 0.3.0
 * @category services
 */
export const SessionsSource: Context.Tag<SessionsSource, SessionsSource> = Context.GenericTag<SessionsSource>(
  "@acx/memory/SessionTools/SessionsSource"
)

/**
 * A source with no store, whose tools all fail with `reason` (a server started without one).
 *
 * @since 0.3.0
 * @category constructors
 */
export const unavailable = (reason: string): SessionsSource => ({ open: Effect.fail(reason) })

const Turn = Schema.Struct({
  turn: Schema.Number,
  uuids: Schema.Array(Schema.String),
  time: Schema.optional(Schema.String),
  kind: Schema.Literal("prompt", "assistant", "results", "compaction"),
  text: Schema.String
})

const TurnsResult = Schema.Struct({
  target: Schema.String,
  projectKey: Schema.String,
  sessionId: Schema.String,
  subpath: Schema.String,
  /** Turns of the whole session (the numbers go up to it). */
  totalTurns: Schema.Number,
  turns: Schema.Array(Turn)
})

/**
 * The annotations of acx's MCP tools: read-only, repeatable, closed world, so Claude Code may call
 * them without asking.
 *
 * @since 0.3.0
 * @category tools
 */
export const readOnlyHints = Context.make(Tool.Readonly, true).pipe(
  Context.add(Tool.Destructive, false),
  Context.add(Tool.Idempotent, true),
  Context.add(Tool.OpenWorld, false)
)

/**
 * The session tools.
 *
 * @since 0.3.0
 * @category tools
 */
export const SessionToolkit = Toolkit.make(
  (Tool.make("search_sessions", {
    description:
      "Search inside every past Claude Code conversation kept by acx sync (user prompts, assistant text and thinking, tool inputs and results), best matches first. Words must all match; \"a phrase\" matches in order; -word leaves out. Secrets are masked. Each hit names its sessionId and the entry uuid to pass to get_session_turns as `around`.",
    parameters: {
      query: Schema.String.annotations({ description: "Words, \"a phrase\", -excluded, e.g. `beads -credo`" }),
      project: Schema.optional(Schema.String).annotations({
        description: "Only this project: the absolute directory Claude Code ran in, or its project directory name"
      }),
      role: Schema.optional(Schema.Literal("user", "assistant", "tool")).annotations({
        description: "Only the user's prompts, the assistant's text, or tool inputs and results"
      }),
      limit: Schema.optional(Schema.Number).annotations({
        description: "At most this many hits (default 20, at most 500)"
      }),
      since: Schema.optional(Schema.String).annotations({
        description: "Only texts from this local day on (YYYY-MM-DD)"
      })
    },
    success: SessionSearch.SearchResult,
    failure: Schema.String
  })).annotateContext(readOnlyHints),
  (Tool.make("get_session_turns", {
    description:
      `A past conversation's turns as text (user prompts, assistant text, tool calls with their inputs and results), secrets masked, each field cut at ${SessionTurns.FIELD_CAP} characters with the cut said. Give a hit's sessionId (or a unique prefix of at least 4 characters) and its uuid as \`around\`, or a turn number as \`fromTurn\`.`,
    parameters: {
      sessionId: Schema.String.annotations({ description: "The session id, or a unique prefix (4+ characters)" }),
      subpath: Schema.optional(Schema.String).annotations({
        description: "A subagent's transcript (a hit's subpath, e.g. subagents/agent-a1b2); default the main one"
      }),
      around: Schema.optional(Schema.String).annotations({
        description: "An entry uuid (a hit's uuid): the turns around the one that holds it"
      }),
      fromTurn: Schema.optional(Schema.Number).annotations({ description: "The first turn to show, 1-based" }),
      max: Schema.optional(Schema.Number).annotations({
        description:
          `At most this many turns (default ${SessionTurns.DEFAULT_TURNS}, at most ${SessionTurns.MAX_TURNS})`
      })
    },
    success: TurnsResult,
    failure: Schema.String
  })).annotateContext(readOnlyHints)
)

const projectKeyOf = (project: string | undefined): string | undefined =>
  project === undefined || !path.isAbsolute(project) ? project : ProjectDir.projectDirName(project, process.env)

const sinceOf = (since: string | undefined): Either.Either<number | undefined, string> => {
  if (since === undefined) return Either.right(undefined)
  const start = StatsReport.localDayStart(since)
  return start === undefined
    ? Either.left(`since: ${JSON.stringify(since)} is not a day (YYYY-MM-DD)`)
    : Either.right(start)
}

const describe = (error: { readonly message: string; readonly description?: string }): string =>
  error.description ?? error.message

/** The one session a query names, or why none. */
const findSession = (sessions: ReadonlyArray<StoreCatalog.StoredSession>, query: string) => {
  const found = SessionIdLookup.lookup(sessions, (session) => session.sessionId, query)
  switch (found._tag) {
    case "Found":
      return Either.right(found.value)
    case "Malformed":
      return Either.left(`${JSON.stringify(query)} is not a session id or a prefix of one (4 or more hex digits)`)
    case "NotFound":
      return Either.left(`no session ${query} in the store`)
    case "Ambiguous":
      return Either.left(
        `${query} names ${found.matches.length} sessions: ${
          found.matches.slice(0, 5).map((session) => session.sessionId).join(", ")
        }; give more of the id`
      )
  }
}

const searchSessions = (source: SessionsSource) =>
(
  { limit, project, query, role, since }: {
    readonly query: string
    readonly project?: string | undefined
    readonly role?: "user" | "assistant" | "tool" | undefined
    readonly limit?: number | undefined
    readonly since?: string | undefined
  }
) =>
  Effect.gen(function*() {
    const from = yield* sinceOf(since)
    const { catalog, target } = yield* source.open
    const hits = yield* SessionSearch.search(catalog, query, {
      projectKey: projectKeyOf(project),
      since: from,
      role,
      limit
    }).pipe(Effect.mapError(describe))
    return { query, target, hits }
  })

const getTurns = (source: SessionsSource) =>
(
  { around, fromTurn, max, sessionId, subpath }: {
    readonly sessionId: string
    readonly subpath?: string | undefined
    readonly around?: string | undefined
    readonly fromTurn?: number | undefined
    readonly max?: number | undefined
  }
) =>
  Effect.gen(function*() {
    const { catalog, store, target } = yield* source.open
    const sessions = yield* catalog.listSessions().pipe(Effect.mapError(describe))
    const session = yield* findSession(sessions, sessionId)
    const key = { projectKey: session.projectKey, sessionId: session.sessionId }
    const entries = yield* store.load(subpath === undefined || subpath === "" ? key : { ...key, subpath })
      .pipe(Effect.mapError(describe))
    if (entries === null) {
      return yield* Effect.fail(`session ${session.sessionId} has no transcript ${JSON.stringify(subpath ?? "")}`)
    }
    const items = SessionFold.items(
      entries.map((entry, i) => ({ line: i + 1, entry })),
      undefined,
      SessionSearch.mask
    )
    const turns = SessionTurns.turnsOf(items)
    const shown = yield* Either.mapLeft(
      SessionTurns.window(turns, { around, fromTurn, max }),
      (missing) => `no turn of session ${session.sessionId} holds the entry ${missing.uuid}`
    )
    return { ...key, subpath: subpath ?? "", target, totalTurns: turns.length, turns: shown }
  })

/**
 * The tools' handlers, on the {@link SessionsSource} in context.
 *
 * @since 0.3.0
 * @category layers
 */
export const handlers = SessionToolkit.toLayer(Effect.map(SessionsSource, (source) =>
  SessionToolkit.of({
    search_sessions: searchSessions(source),
    get_session_turns: getTurns(source)
  })))
