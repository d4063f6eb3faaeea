/**
 * `acx memory mcp`: the memory as an MCP server on stdio, so Claude Code fetches details on
 * demand instead of carrying them in every session's context. Three read-only tools, declared
 * with Schema through Effect's own `McpServer` (`@effect/ai`):
 *
 * - `search` — full-text search (FTS5, bm25) over observations, summaries and prompts;
 * - `get_observations` — entries in full by id (`O12`, `S3`, `P7`: the ids the SessionStart
 *   context shows);
 * - `timeline` — what happened in the project around an entry.
 *
 * Results are objects (`{ results: [...] }`): MCP's `structuredContent` must be one.
 *
 * @since 0.1.0
 */
import * as McpServer from "@effect/ai/McpServer"
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { MemoryError } from "./MemoryError.js"
import * as MemorySearch from "./MemorySearch.js"

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

// read-only, repeatable, closed world: Claude Code may call them without asking
const readOnlyHints = Context.make(Tool.Readonly, true).pipe(
  Context.add(Tool.Destructive, false),
  Context.add(Tool.Idempotent, true),
  Context.add(Tool.OpenWorld, false)
)

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
 * The tools registered on an `McpServer` in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<never, never, McpServer.McpServer | SqlClient.SqlClient> = McpServer.toolkit(
  MemoryToolkit
).pipe(Layer.provide(handlers))

/**
 * The server on this process's stdin and stdout (logs must go to stderr: stdout is the
 * protocol).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStdio = (version: string): Layer.Layer<never, never, SqlClient.SqlClient> =>
  layer.pipe(
    Layer.provide(McpServer.layerStdio({
      name: "acx-memory",
      version,
      stdin: NodeStream.stdin,
      stdout: NodeSink.stdout
    }))
  )
