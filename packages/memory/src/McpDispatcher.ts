/**
 * The JSON-RPC front of an MCP server on stdio, pure: one line from the client in, what to send
 * the inner server and what to answer the client out; one message from the inner server in,
 * what to pass on to the client out.
 *
 * Why it exists: `@effect/ai`'s `McpServer` (0.37) decodes every request id with `BigInt`, so a
 * string id (`"server-discover-probe-1"`, the id Claude Code's first request carries) kills the
 * request; it answers a method it does not know with a defect whose `id` is `-32603` (the error
 * code where the request's id belongs); and it does not know `server/discover` (MCP 2026-07-28).
 * Claude Code 2.1.330+ opens every stdio server with that request: without an answer carrying
 * its id it waits out its probe timeout (~2.8 s) before it falls back to `initialize`, and in its
 * pinned-protocol mode it does not fall back at all.
 *
 * So in front of the inner server:
 * - every request id the client sends (a string or a number) is swapped for a fresh number
 *   before the inner server sees it, and swapped back, exactly, on the answer;
 * - `server/discover` is answered here (stateless, from the configured server description);
 * - a method the inner server does not serve is answered here with -32601 and the request's id;
 * - lines that are not JSON, not an object, or not a JSON-RPC request get -32700 / -32600 with
 *   id `null`, and the inner server never sees them;
 * - a request made under a 2026-07-28 protocol version (named in its `_meta`) gets
 *   `resultType: "complete"` on its result, as that revision requires;
 * - an inner error keeps its code when it is a JSON-RPC one, else becomes -32603, and loses the
 *   Effect-specific `_tag`/`data` (an Effect `Cause`).
 *
 * @since 0.1.0
 */

/**
 * A JSON-RPC request id as the client sent it: echoed back exactly.
 *
 * @since 0.1.0
 * @category models
 */
export type RequestId = string | number

/**
 * A JSON object (a decoded JSON-RPC message).
 *
 * @since 0.1.0
 * @category models
 */
export type JsonObject = { readonly [key: string]: unknown }

/**
 * The MCP protocol revision of `server/discover` and stateless requests.
 *
 * @since 0.1.0
 * @category constants
 */
export const STATELESS_PROTOCOL_VERSION = "2026-07-28"

/**
 * Where a stateless (2026-07-28) request names its protocol version: `params._meta[…]`.
 *
 * @since 0.1.0
 * @category constants
 */
export const PROTOCOL_VERSION_META = "io.modelcontextprotocol/protocolVersion"

/**
 * Where a `server/discover` result carries the server's name and version: `_meta[…]`.
 *
 * @since 0.1.0
 * @category constants
 */
export const SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"

/**
 * JSON-RPC 2.0's error codes used here.
 *
 * @since 0.1.0
 * @category constants
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InternalError: -32603
} as const

/**
 * What `server/discover` says of the server: enough to answer it before the server has loaded.
 *
 * @since 0.1.0
 * @category models
 */
export interface Description {
  readonly serverInfo: { readonly name: string; readonly version: string }
  /** The `capabilities` of the `server/discover` result. */
  readonly capabilities: JsonObject
  /** Every protocol version the server speaks, newest first (`server/discover`'s `supportedVersions`). */
  readonly supportedVersions: ReadonlyArray<string>
  readonly instructions?: string | undefined
}

/**
 * What the front knows of the server it stands before.
 *
 * @since 0.1.0
 * @category models
 */
export interface Config extends Description {
  /** The request methods the inner server answers; any other request gets -32601 here. */
  readonly requests: ReadonlySet<string>
  /** The notification methods the inner server takes; any other notification is dropped. */
  readonly notifications: ReadonlySet<string>
}

/**
 * A request on its way through the inner server: the client's id, and whether its result needs
 * the stateless revision's `resultType`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Pending {
  readonly clientId: RequestId
  readonly stateless: boolean
}

/**
 * The requests in flight, by the number the inner server knows them by.
 *
 * @since 0.1.0
 * @category models
 */
export interface State {
  readonly nextId: number
  readonly pending: ReadonlyMap<number, Pending>
}

/**
 * Nothing in flight.
 *
 * @since 0.1.0
 * @category constructors
 */
export const initial: State = { nextId: 1, pending: new Map() }

/**
 * One step: the new state, the messages for the inner server, the messages for the client.
 *
 * @since 0.1.0
 * @category models
 */
export interface Step {
  readonly state: State
  readonly toServer: ReadonlyArray<JsonObject>
  readonly toClient: ReadonlyArray<JsonObject>
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isRequestId = (value: unknown): value is RequestId =>
  typeof value === "string" || (typeof value === "number" && Number.isFinite(value))

/**
 * A JSON-RPC error answer.
 *
 * @since 0.1.0
 * @category constructors
 */
export const errorResponse = (id: RequestId | null, code: number, message: string): JsonObject => ({
  jsonrpc: "2.0",
  id,
  error: { code, message }
})

const reply = (state: State, ...toClient: ReadonlyArray<JsonObject>): Step => ({ state, toServer: [], toClient })

/**
 * The protocol version a request names in its `_meta`, if any (stateless requests do; requests
 * of a session opened with `initialize` do not).
 *
 * @since 0.1.0
 * @category accessors
 */
export const requestProtocolVersion = (message: JsonObject): string | undefined => {
  const params = message["params"]
  const meta = isObject(params) ? params["_meta"] : undefined
  const version = isObject(meta) ? meta[PROTOCOL_VERSION_META] : undefined
  return typeof version === "string" ? version : undefined
}

/**
 * The `server/discover` result: which versions the server speaks, what it offers, who it is.
 *
 * @since 0.1.0
 * @category constructors
 */
export const discoverResult = (config: Description): JsonObject => ({
  resultType: "complete",
  supportedVersions: config.supportedVersions,
  capabilities: config.capabilities,
  ...(config.instructions === undefined ? {} : { instructions: config.instructions }),
  _meta: { [SERVER_INFO_META]: config.serverInfo }
})

const fromRequest = (config: Config, state: State, message: JsonObject, method: string, id: RequestId): Step => {
  if (method === "server/discover") {
    return reply(state, { jsonrpc: "2.0", id, result: discoverResult(config) })
  }
  if (!config.requests.has(method)) {
    return reply(state, errorResponse(id, ErrorCode.MethodNotFound, `Method not found: ${method}`))
  }
  const pending = new Map(state.pending)
  const version = requestProtocolVersion(message)
  pending.set(state.nextId, { clientId: id, stateless: version !== undefined && version >= STATELESS_PROTOCOL_VERSION })
  return {
    state: { nextId: state.nextId + 1, pending },
    toServer: [{ ...message, id: state.nextId }],
    toClient: []
  }
}

// the inner number of a request still in flight, by the id the client gave it
const innerIdOf = (state: State, clientId: unknown): number | undefined => {
  for (const [inner, pending] of state.pending) {
    if (pending.clientId === clientId) return inner
  }
  return undefined
}

const fromNotification = (config: Config, state: State, message: JsonObject, method: string): Step => {
  if (!config.notifications.has(method)) return reply(state)
  if (method !== "notifications/cancelled") return { state, toServer: [message], toClient: [] }
  // a cancellation names the request by the client's id: the inner server knows another
  const params = isObject(message["params"]) ? message["params"] : {}
  const inner = innerIdOf(state, params["requestId"])
  return inner === undefined
    ? reply(state)
    : { state, toServer: [{ ...message, params: { ...params, requestId: inner } }], toClient: [] }
}

/**
 * The answer to a line when it is a `server/discover` request, else `undefined`: what a process
 * can answer while the server itself still loads (Claude Code's probe timer runs from the moment
 * it sends the request, the process's start-up included).
 *
 * @since 0.1.0
 * @category dispatch
 */
export const discoverAnswer = (description: Description, line: string): JsonObject | undefined => {
  // cheap test first: most lines are not discover requests
  if (!line.includes("server/discover")) return undefined
  let message: unknown
  try {
    message = JSON.parse(line)
  } catch {
    return undefined
  }
  return isObject(message) && message["method"] === "server/discover" && isRequestId(message["id"])
    ? { jsonrpc: "2.0", id: message["id"], result: discoverResult(description) }
    : undefined
}

/**
 * A decoded message from the client.
 *
 * @since 0.1.0
 * @category dispatch
 */
export const fromClientMessage = (config: Config, state: State, message: unknown): Step => {
  if (!isObject(message)) {
    return reply(state, errorResponse(null, ErrorCode.InvalidRequest, "Invalid Request: not a JSON-RPC object"))
  }
  const method = message["method"]
  const hasId = "id" in message && message["id"] !== undefined
  if (typeof method === "string") {
    if (!hasId) return fromNotification(config, state, message, method)
    const id = message["id"]
    return isRequestId(id)
      ? fromRequest(config, state, message, method, id)
      : reply(
        state,
        errorResponse(null, ErrorCode.InvalidRequest, "Invalid Request: the id must be a string or a number")
      )
  }
  // the client's answer to a request of the server: the ids are the server's own
  if (method === undefined && hasId && ("result" in message || "error" in message)) {
    return { state, toServer: [message], toClient: [] }
  }
  return reply(
    state,
    errorResponse(
      hasId && isRequestId(message["id"]) ? message["id"] : null,
      ErrorCode.InvalidRequest,
      "Invalid Request: no method"
    )
  )
}

/**
 * One line from the client (without its newline). Blank lines are ignored.
 *
 * @since 0.1.0
 * @category dispatch
 */
export const fromClientLine = (config: Config, state: State, line: string): Step => {
  if (line.trim() === "") return reply(state)
  let message: unknown
  try {
    message = JSON.parse(line)
  } catch {
    return reply(state, errorResponse(null, ErrorCode.ParseError, "Parse error: the line is not JSON"))
  }
  return fromClientMessage(config, state, message)
}

const isJsonRpcCode = (code: unknown): code is number =>
  typeof code === "number" && Number.isInteger(code) && code !== 0

const cleanError = (error: unknown): JsonObject => {
  const fields = isObject(error) ? error : {}
  const message = typeof fields["message"] === "string" ? fields["message"] : "Internal error"
  return {
    code: isJsonRpcCode(fields["code"]) ? fields["code"] : ErrorCode.InternalError,
    message,
    // `data` of an Effect error is its Cause: internal, not the client's business
    ...("data" in fields && !("_tag" in fields) ? { data: fields["data"] } : {})
  }
}

/**
 * A message from the inner server. Its answers go back under the client's ids; an answer to no
 * request in flight (the inner server's defect report, whose `id` is an error code) is dropped;
 * the server's own requests and notifications pass unchanged.
 *
 * @since 0.1.0
 * @category dispatch
 */
export const fromServerMessage = (state: State, message: unknown): Step => {
  if (!isObject(message)) return reply(state)
  const method = message["method"]
  if (typeof method === "string") {
    // the RPC framework's own control messages are not MCP
    return method.startsWith("@effect/rpc/") ? reply(state) : reply(state, message)
  }
  const id = message["id"]
  const pending = typeof id === "number" ? state.pending.get(id) : undefined
  if (pending === undefined || typeof id !== "number") return reply(state)
  const rest = new Map(state.pending)
  rest.delete(id)
  const next: State = { nextId: state.nextId, pending: rest }
  if ("error" in message && message["error"] !== undefined) {
    return reply(next, { jsonrpc: "2.0", id: pending.clientId, error: cleanError(message["error"]) })
  }
  const result = message["result"]
  return reply(next, {
    jsonrpc: "2.0",
    id: pending.clientId,
    result: pending.stateless && isObject(result) && !("resultType" in result)
      ? { ...result, resultType: "complete" }
      : result ?? {}
  })
}
