/**
 * A model double: a real HTTP server on 127.0.0.1 that speaks the Anthropic Messages API, so
 * the real Claude Code CLI (or anything else that calls `POST /v1/messages`) runs completely
 * offline with scripted words. Everything around the model stays real: the CLI executes its
 * tools, fires its hooks, writes its transcripts, mirrors into a `sessionStore`, resumes and
 * reports its cost from the usage figures the script declares.
 *
 * It answers `POST /v1/messages` (the CLI calls `/v1/messages?beta=true`) with an SSE stream
 * (`message_start`, `content_block_start` / `_delta` / `_stop` per block — `text_delta`,
 * `thinking_delta` + `signature_delta`, `input_json_delta` — `message_delta`, `message_stop`),
 * or with a JSON message when `stream` is false, always with a `request-id` header;
 * `POST /v1/messages/count_tokens` with an estimate; anything else with 404.
 *
 * A script is data or a function:
 * - a list: each entry is an answer, or `{ when, reply, times }`. For each request the first
 *   entry with uses left whose `when` holds is used (a plain answer, or a step without `when`,
 *   matches any request that offers tools: the agent loop). Requests without tools are the
 *   CLI's side calls (titles and the like): unless a step matches them, they get a short text.
 *   A request nothing matches gets a 400 `invalid_request_error` naming it, so a test whose
 *   script ran out fails loudly, at once (the CLI does not retry a 400).
 * - a function `(request) => answer`, asked for every request.
 * An answer is a reply (`content`: a string or text / thinking / tool_use blocks; `stopReason`,
 * default `tool_use` when a tool is called, else `end_turn`; `usage`, defaults estimated from
 * sizes) or an HTTP error (`{ error: { status, type, message } }`, e.g. {@link overloaded}).
 *
 * @example
 * ```ts
 * import { ModelDouble, startModelDouble } from "@acx/testing"
 *
 * const model = await startModelDouble({
 *   script: [
 *     { content: [{ type: "tool_use", name: "Bash", input: { command: "echo hi" } }] },
 *     { when: ModelDouble.lastMessageHasToolResult, reply: { content: "It printed hi." } }
 *   ]
 * })
 * // ANTHROPIC_BASE_URL=model.url claude -p "say hi" …
 * await model.close()
 * ```
 *
 * @since 0.1.0
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { randomBytes } from "node:crypto"
import * as Http from "node:http"
import * as Internal from "./internal/modelDouble.js"
import { startScoped } from "./internal/scoped.js"
import type { ModelAnswer, ModelError, ModelRequest, Script } from "./ModelScript.js"

/**
 * Replies, errors, script steps and requests (defined in `ModelScript`).
 *
 * @since 0.1.0
 * @category models
 */
export type {
  ModelAnswer,
  ModelError,
  ModelReply,
  ModelRequest,
  ModelUsage,
  ReplyBlock,
  Script,
  ScriptStep
} from "./ModelScript.js"

/**
 * One request and what the double answered.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelRequestLogEntry extends ModelRequest {
  readonly route: "messages" | "count_tokens" | "unknown"
  readonly method: string
  readonly status: number
  /** The message sent back (successful `messages` answers). */
  readonly response?: Internal.RenderedMessage | undefined
}

/**
 * A running double.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelDouble {
  /** `http://127.0.0.1:PORT`: the `ANTHROPIC_BASE_URL` of a client. */
  readonly url: string
  readonly port: number
  /** Every request so far, in arrival order. */
  readonly requests: Effect.Effect<ReadonlyArray<ModelRequestLogEntry>>
  /** Only the `messages` requests of the agent loop (those that offer tools). */
  readonly agentRequests: Effect.Effect<ReadonlyArray<ModelRequestLogEntry>>
  /** Replaces the script (every step's uses restored). */
  readonly setScript: (script: Script) => Effect.Effect<void>
  readonly clearRequests: Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category tags
 */
export const ModelDouble: Context.Tag<ModelDouble, ModelDouble> = Context.GenericTag<ModelDouble>(
  "@acx/testing/ModelDouble"
)

/**
 * @since 0.1.0
 * @category models
 */
export interface ModelDoubleOptions {
  /** Default: side calls get a short text, anything else a 400 naming the request. */
  readonly script?: Script | undefined
  /** Default 0: any free port. */
  readonly port?: number | undefined
}

/**
 * The double could not start (its port was taken, …).
 *
 * @since 0.1.0
 * @category errors
 */
export class ModelDoubleError extends Schema.TaggedError<ModelDoubleError>("@acx/testing/ModelDouble/ModelDoubleError")(
  "ModelDoubleError",
  {
    reason: Schema.Literal("Listen"),
    description: Schema.String,
    cause: Schema.optionalWith(Schema.Defect, { exact: true })
  }
) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `model double: ${this.description}`
  }
}

/**
 * An overloaded answer (HTTP 529 `overloaded_error`), as the API sends under load.
 *
 * @since 0.1.0
 * @category constructors
 */
export const overloaded: ModelError = { error: { status: 529, type: "overloaded_error", message: "Overloaded" } }

/**
 * Whether the request is a side call: it offers no tools (titles, summaries and the like).
 *
 * @since 0.1.0
 * @category predicates
 */
export const isSideCall: (request: ModelRequest) => boolean = Internal.isSideCallRequest

/**
 * Whether the last message of the request is a user message carrying a `tool_result`: the CLI
 * ran the tool the previous reply asked for.
 *
 * @since 0.1.0
 * @category predicates
 */
export const lastMessageHasToolResult = (request: ModelRequest): boolean =>
  Internal.lastUserBlocks(request).some((block) => block.type === "tool_result")

/**
 * How many messages of the request carry a `tool_result`: how many tool rounds the conversation
 * has had, so a script can ask for its next step by number.
 *
 * @since 0.1.0
 * @category predicates
 */
export const toolResultCount = (request: ModelRequest): number => {
  const messages = request.body["messages"]
  if (!Array.isArray(messages)) return 0
  return messages.filter((message: { content?: unknown } | null) =>
    Array.isArray(message?.content) &&
    message.content.some((block: { type?: unknown } | null) => block?.type === "tool_result")
  ).length
}

/**
 * The last message of the request that carries a `tool_result`, or undefined: what the CLI sent
 * back from the tool the previous reply asked for. Not always the last message: Claude Code
 * 2.1.337 may append a notice after it (the MCP tools it defers, as a `system` message).
 *
 * @since 0.4.0
 * @category predicates
 */
export const lastToolResultMessage = (request: ModelRequest): unknown => {
  const messages = request.body["messages"]
  if (!Array.isArray(messages)) return undefined
  return [...messages].reverse().find((message: { content?: unknown } | null) =>
    Array.isArray(message?.content) &&
    message.content.some((block: { type?: unknown } | null) => block?.type === "tool_result")
  )
}

/**
 * Whether the system prompt mentions `text`.
 *
 * @since 0.1.0
 * @category predicates
 */
export const systemMentions = (text: string) => (request: ModelRequest): boolean =>
  JSON.stringify(request.body["system"] ?? "").includes(text)

/**
 * Whether the request is a new prompt containing `text`: the last user message's text contains
 * it and carries no tool result (the follow-ups of a tool call quote the prompt in their history).
 *
 * @since 0.1.0
 * @category predicates
 */
export const userSays = (text: string) => (request: ModelRequest): boolean =>
  Internal.lastUserText(request)?.includes(text) === true && !lastMessageHasToolResult(request)

/**
 * The text of the last user message, if it has text.
 *
 * @since 0.1.0
 * @category predicates
 */
export const lastUserText: (request: ModelRequest) => string | undefined = Internal.lastUserText

const token = (bytes: number) => randomBytes(bytes).toString("hex")

// The request as the script and the log see it: path, query, headers and the JSON body (empty
// when it is not a JSON object: the answer then says why).
const describe = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const url = new URL(request.url, "http://double")
  const text = yield* Effect.orElseSucceed(request.text, () => "")
  let body: { readonly [key: string]: unknown } = {}
  try {
    const parsed: unknown = text === "" ? {} : JSON.parse(text)
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) body = parsed as typeof body
  } catch {
    // logged with an empty body; the answer below says why
  }
  const described: ModelRequest = {
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: { ...request.headers },
    body
  }
  return { request, described }
})

const headers = () => ({ "request-id": `req_double_${token(8)}` })

const errorResponse = (error: ModelError["error"]) =>
  HttpServerResponse.unsafeJson(
    { type: "error", error: { type: error.type ?? "api_error", message: error.message ?? "model double error" } },
    { status: error.status, headers: headers() }
  )

// A double's state: the script's progress, the requests so far, the messages answered. Requests
// are answered one after another on this thread: plain mutable state suffices.
interface DoubleState {
  script: ReturnType<typeof Internal.initialState>
  readonly log: Array<ModelRequestLogEntry>
  served: number
}

// `POST /v1/messages`: the script's answer (an error when it throws), as JSON or as a stream.
const messages = (double: DoubleState) =>
  Effect.gen(function*() {
    const { described, request } = yield* describe
    const answer = yield* Effect.try({
      try: () => Internal.choose(double.script, described),
      catch: (cause) => (cause instanceof Error ? cause.message : String(cause))
    }).pipe(
      Effect.catchAll((thrown) =>
        Effect.succeed<ModelAnswer>({ error: { status: 500, message: `model double: the script threw: ${thrown}` } })
      )
    )
    if (Internal.isError(answer)) {
      double.log.push({ ...described, route: "messages", method: request.method, status: answer.error.status })
      return errorResponse(answer.error)
    }
    double.served++
    const rendered = Internal.render(answer, described, {
      message: `msg_double_${double.served}_${token(6)}`,
      toolUse: () => `toolu_double_${token(8)}`
    })
    double.log.push({ ...described, route: "messages", method: request.method, status: 200, response: rendered })
    return described.body["stream"] === true
      ? HttpServerResponse.text(Internal.sse(rendered), {
        contentType: "text/event-stream",
        headers: { ...headers(), "cache-control": "no-cache" }
      })
      : HttpServerResponse.unsafeJson(rendered, { headers: headers() })
  })

const countTokens = (double: DoubleState) =>
  Effect.gen(function*() {
    const { described, request } = yield* describe
    double.log.push({ ...described, route: "count_tokens", method: request.method, status: 200 })
    return HttpServerResponse.unsafeJson(
      { input_tokens: Internal.estimateTokens([described.body["system"], described.body["messages"]]) },
      { headers: headers() }
    )
  })

const unknown = (double: DoubleState) =>
  Effect.gen(function*() {
    const { described, request } = yield* describe
    double.log.push({ ...described, route: "unknown", method: request.method, status: 404 })
    return errorResponse({
      status: 404,
      type: "not_found_error",
      message: `model double: no route ${described.path}`
    })
  })

// Serves the double's routes on 127.0.0.1:port in the scope; the port it got.
const listen = Effect.fnUntraced(function*(double: DoubleState, port: number) {
  const router = HttpRouter.empty.pipe(
    HttpRouter.post("/v1/messages", messages(double)),
    HttpRouter.post("/v1/messages/count_tokens", countTokens(double)),
    HttpRouter.all("*", unknown(double))
  )
  const context = yield* Layer.build(
    HttpServer.serve(router).pipe(
      Layer.provideMerge(NodeHttpServer.layer(() => Http.createServer(), { host: "127.0.0.1", port }))
    )
  ).pipe(
    Effect.mapError((cause) =>
      new ModelDoubleError({ reason: "Listen", description: `cannot listen on 127.0.0.1:${port}`, cause })
    )
  )
  const address = Context.get(context, HttpServer.HttpServer).address
  return address._tag === "TcpAddress" ? address.port : 0
})

/**
 * Starts a double; it stops when the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options?: ModelDoubleOptions) => Effect.Effect<ModelDouble, ModelDoubleError, Scope.Scope> = Effect
  .fn("ModelDouble.make")(function*(options: ModelDoubleOptions = {}) {
    const double: DoubleState = { script: Internal.initialState(options.script ?? []), log: [], served: 0 }
    const port = yield* listen(double, options.port ?? 0)
    const snapshot = Effect.sync((): ReadonlyArray<ModelRequestLogEntry> => [...double.log])
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      requests: snapshot,
      agentRequests: Effect.map(
        snapshot,
        (entries) => entries.filter((entry) => entry.route === "messages" && !Internal.isSideCallRequest(entry))
      ),
      setScript: (script: Script) =>
        Effect.sync(() => {
          double.script = Internal.initialState(script)
        }),
      clearRequests: Effect.sync(() => {
        double.log.length = 0
      })
    }
  })

/**
 * A double as a layer (stopped when the layer is released).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: ModelDoubleOptions): Layer.Layer<ModelDouble, ModelDoubleError> =>
  Layer.scoped(ModelDouble, make(options))

/**
 * The Promise handle of a running double.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelDoubleHandle extends AsyncDisposable {
  readonly url: string
  readonly port: number
  readonly requests: () => ReadonlyArray<ModelRequestLogEntry>
  readonly agentRequests: () => ReadonlyArray<ModelRequestLogEntry>
  readonly setScript: (script: Script) => void
  readonly clearRequests: () => void
  /** Stops the server; idempotent. */
  readonly close: () => Promise<void>
}

/**
 * Starts a double (Promise API); rejects with a {@link ModelDoubleError} when it cannot listen.
 *
 * @since 0.1.0
 * @category constructors
 */
export const startModelDouble = async (options?: ModelDoubleOptions): Promise<ModelDoubleHandle> => {
  const { close, service: double } = await startScoped(make(options))
  return {
    url: double.url,
    port: double.port,
    requests: () => Effect.runSync(double.requests),
    agentRequests: () => Effect.runSync(double.agentRequests),
    setScript: (script) => Effect.runSync(double.setScript(script)),
    clearRequests: () => Effect.runSync(double.clearRequests),
    close,
    [Symbol.asyncDispose]: close
  }
}
