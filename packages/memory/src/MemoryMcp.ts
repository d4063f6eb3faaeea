/**
 * `acx memory mcp`: the memory as an MCP server on stdio, so Claude Code fetches details on
 * demand instead of carrying them in every session's context. Five read-only tools, declared
 * with Schema through Effect's own `McpServer` (`@effect/ai`):
 *
 * - `search` — full-text search (FTS5, bm25) over observations, summaries and prompts;
 * - `get_observations` — entries in full by id (`O12`, `S3`, `P7`: the ids the SessionStart
 *   context shows);
 * - `timeline` — what happened in the project around an entry;
 * - `search_sessions` and `get_session_turns` (`SessionTools`) — search inside every past
 *   conversation of the session store `acx sync` keeps, and read its turns.
 *
 * Results are objects (`{ results: [...] }`): MCP's `structuredContent` must be one.
 *
 * On stdio the server stands behind {@link McpDispatcher}: Claude Code opens with `server/discover`
 * under a string id, which `McpServer` alone cannot answer.
 *
 * @since 0.1.0
 */
import * as McpSchema from "@effect/ai/McpSchema"
import * as McpServer from "@effect/ai/McpServer"
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import * as McpDispatcher from "./McpDispatcher.js"
import type { MemoryError } from "./MemoryError.js"
import * as MemoryMcpDescription from "./MemoryMcpDescription.js"
import * as MemorySearch from "./MemorySearch.js"
import * as SessionTools from "./SessionTools.js"

const Kind = Schema.Literal("observation", "summary", "prompt")

const SearchResult = Schema.Struct({
  id: Schema.String,
  kind: Kind,
  project: Schema.String,
  sessionId: Schema.String,
  type: Schema.String,
  title: Schema.String,
  snippet: Schema.String,
  createdAt: Schema.Number
})

const Entry = Schema.Struct({
  id: Schema.String,
  kind: Kind,
  fields: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

const TimelineEntry = Schema.Struct({
  id: Schema.String,
  kind: Kind,
  sessionId: Schema.String,
  type: Schema.String,
  title: Schema.String,
  createdAt: Schema.Number
})

const { readOnlyHints } = SessionTools

/**
 * The memory's tools.
 *
 * @since 0.1.0
 * @category tools
 */
export const MemoryToolkit = Toolkit.make(
  (Tool.make("search", {
    description:
      "Search what earlier Claude Code sessions learned and did (observations, session summaries, the user's prompts), best matches first. Every word must match.",
    parameters: {
      query: Schema.String.annotations({ description: "Words to look for, e.g. `cart tax rounding`" }),
      project: Schema.optional(Schema.String).annotations({
        description: "Only this project: the absolute directory Claude Code ran in"
      }),
      type: Schema.optional(Schema.String).annotations({
        description:
          "Only this observation type (decision, bugfix, feature, refactor, discovery, change), or summary, or prompt"
      }),
      limit: Schema.optional(Schema.Number).annotations({ description: "At most this many results (default 20)" })
    },
    success: Schema.Struct({ results: Schema.Array(SearchResult) }),
    failure: Schema.String
  })).annotateContext(readOnlyHints),
  (Tool.make("get_observations", {
    description:
      "Observations, summaries or prompts in full, by the ids that search, timeline and the session-start memory show (O12, S3, P7).",
    parameters: { ids: Schema.Array(Schema.String).annotations({ description: "Ids such as O12, S3, P7" }) },
    success: Schema.Struct({ results: Schema.Array(Entry) }),
    failure: Schema.String
  })).annotateContext(readOnlyHints),
  (Tool.make("timeline", {
    description: "What happened in the same project around an entry, oldest first: the entries before and after it.",
    parameters: {
      around: Schema.String.annotations({ description: "An id such as O12" }),
      window: Schema.optional(Schema.Number).annotations({ description: "Entries on each side (default 5)" })
    },
    success: Schema.Struct({ results: Schema.Array(TimelineEntry) }),
    failure: Schema.String
  })).annotateContext(readOnlyHints)
)

const message = (error: MemoryError) => error.message

/**
 * The tools' handlers, on the memory database in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const handlers = MemoryToolkit.toLayer(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const run = <A>(effect: Effect.Effect<A, MemoryError, SqlClient.SqlClient>) =>
    effect.pipe(Effect.provideService(SqlClient.SqlClient, sql), Effect.mapError(message))
  return MemoryToolkit.of({
    search: ({ limit, project, query, type }) =>
      run(
        Effect.map(
          MemorySearch.search(query, { project, type, limit }),
          (results) => ({ results: results.map(({ rank: _rank, ...result }) => result) })
        )
      ),
    get_observations: ({ ids }) => run(Effect.map(MemorySearch.get(ids), (results) => ({ results }))),
    timeline: ({ around, window }) => run(Effect.map(MemorySearch.timeline(around, window), (results) => ({ results })))
  })
}))

/**
 * The tools registered on an `McpServer` in context: the memory's, on its database, and the
 * session tools (`SessionTools`), on the sessions source.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<
  never,
  never,
  McpServer.McpServer | SqlClient.SqlClient | SessionTools.SessionsSource
> = McpServer.toolkit(Toolkit.merge(MemoryToolkit, SessionTools.SessionToolkit)).pipe(
  Layer.provide(Layer.merge(handlers, SessionTools.handlers))
)

/**
 * What the JSON-RPC front needs to know of the memory's server.
 *
 * @since 0.1.0
 * @category constructors
 */
export const dispatcherConfig = (version: string): McpDispatcher.Config => ({
  ...MemoryMcpDescription.describe(version),
  requests: new Set(McpSchema.ClientRequestRpcs.requests.keys()),
  notifications: new Set(McpSchema.ClientNotificationRpcs.requests.keys())
})

const encodeLine = (message: McpDispatcher.JsonObject): string => `${JSON.stringify(message)}\n`

/**
 * How long the server still answers after the client's input ended.
 *
 * @since 0.1.0
 * @category constants
 */
export const ANSWER_AFTER_END: Duration.DurationInput = "30 seconds"

/**
 * The server behind {@link McpDispatcher} on the given byte streams: the client's lines go
 * through the front, which answers what the inner `McpServer` cannot and hands it the rest
 * under numeric ids; the inner server's answers go back through the front.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDispatched = <EIn, EOut>(options: {
  readonly version: string
  readonly stdin: Stream.Stream<Uint8Array, EIn>
  readonly stdout: Sink.Sink<unknown, string, unknown, EOut>
  /**
   * Completed once the client's input has ended and every request read from it was answered
   * (or {@link ANSWER_AFTER_END} passed): the server has no one left to answer.
   */
  readonly done?: Deferred.Deferred<void> | undefined
}): Layer.Layer<never, never, SqlClient.SqlClient | SessionTools.SessionsSource> =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const config = dispatcherConfig(options.version)
    const toServer = yield* Queue.unbounded<string>()
    const toClient = yield* Queue.unbounded<string>()
    const state = yield* Ref.make(McpDispatcher.initial)
    const step = (next: (state: McpDispatcher.State) => McpDispatcher.Step) =>
      Ref.modify(state, (current) => {
        const result = next(current)
        return [result, result.state] as const
      }).pipe(
        Effect.flatMap((result) =>
          Effect.zipRight(
            Queue.offerAll(toServer, result.toServer.map(encodeLine)),
            Queue.offerAll(toClient, result.toClient.map(encodeLine))
          )
        )
      )

    // one writer: answers of the front and of the inner server never interleave mid-line
    yield* Stream.fromQueue(toClient).pipe(Stream.run(options.stdout), Effect.ignoreLogged, Effect.forkScoped)
    // after the input ends: the answers still owed, written, then done
    const answered = Effect.gen(function*() {
      while ((yield* Ref.get(state)).pending.size > 0 || (yield* Queue.size(toClient)) > 0) {
        yield* Effect.sleep("10 millis")
      }
    }).pipe(Effect.timeoutOption(ANSWER_AFTER_END))
    yield* options.stdin.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runForEach((line) => step((current) => McpDispatcher.fromClientLine(config, current, line))),
      Effect.ignoreLogged,
      Effect.zipRight(answered),
      Effect.zipRight(options.done === undefined ? Effect.void : Deferred.succeed(options.done, undefined)),
      Effect.forkScoped
    )

    let partial = ""
    const fromServer = Sink.forEach((chunk: Uint8Array | string) =>
      Effect.suspend(() => {
        partial += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8")
        const lines = partial.split("\n")
        partial = lines.pop() ?? ""
        return Effect.forEach(lines, (line) => {
          if (line.trim() === "") return Effect.void
          let message: unknown
          try {
            message = JSON.parse(line)
          } catch {
            return Effect.logWarning("acx memory mcp: the inner server wrote a line that is not JSON")
          }
          return step((current) => McpDispatcher.fromServerMessage(current, message))
        }, { discard: true })
      })
    )

    // The inner server reads requests only once every tool is registered: a stateless client's
    // first line is a `tools/call` (no `initialize` before it), which would otherwise race the
    // registration and find no tool.
    const registered = yield* Deferred.make<void>()
    const requests = Stream.fromEffect(Deferred.await(registered)).pipe(
      Stream.flatMap(() => Stream.fromQueue(toServer)),
      Stream.encodeText
    )
    return layer.pipe(
      Layer.tap(() => Deferred.succeed(registered, undefined)),
      Layer.provide(McpServer.layerStdio({
        name: MemoryMcpDescription.SERVER_NAME,
        version: options.version,
        stdin: requests,
        stdout: fromServer
      }))
    )
  }))

/**
 * The server on this process's stdin and stdout (logs must go to stderr: stdout is the
 * protocol).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStdio = (
  version: string
): Layer.Layer<never, never, SqlClient.SqlClient | SessionTools.SessionsSource> =>
  layerDispatched({ version, stdin: NodeStream.stdin, stdout: NodeSink.stdout })
