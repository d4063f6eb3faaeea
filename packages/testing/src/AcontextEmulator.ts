/**
 * A faithful Acontext emulator: a real HTTP server on 127.0.0.1 that implements the part of the
 * Acontext REST API acx uses (`/api/v1`: create, list and delete sessions, store and read
 * messages in `format: "anthropic"`, ping), with the server's status codes, envelopes and
 * error texts, backed by memory or a SQLite file, with fault injection (status codes, latency,
 * dropped connections, every Nth request, a seeded random rate, the first N requests, side
 * effect applied or not) changeable at runtime, and introspection of requests and stored data.
 *
 * Two APIs: the Effect one (`AcontextEmulator` tag, scoped `make`, `layer`) and the Promise one
 * (`startAcontextEmulator`).
 *
 * Not emulated (each answers loudly rather than pretending): the `openai`, `gemini` and
 * `acontext` message formats (400 `"format not supported by the acx emulator"`), multipart
 * uploads, `edit_strategies`, and the session routes acx does not call (configs, flush, events,
 * tasks, token counts, …: 404).
 *
 * @example
 * ```ts
 * import { startAcontextEmulator } from "@acx/testing"
 *
 * const emulator = await startAcontextEmulator({ faults: [{ route: "storeMessage", status: 503, times: 1 }] })
 * const res = await fetch(`${emulator.url}/session`, {
 *   method: "POST",
 *   headers: { Authorization: `Bearer ${emulator.apiKey}`, "Content-Type": "application/json" },
 *   body: JSON.stringify({})
 * })
 * await emulator.close()
 * ```
 *
 * @since 0.1.0
 */
import type * as Acontext from "@acx/schema/Acontext"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { randomBytes, randomUUID } from "node:crypto"
import * as Http from "node:http"
import type { AcontextFault, AcontextRoute } from "./AcontextFault.js"
import * as Faults from "./internal/emulator/faults.js"
import * as Handlers from "./internal/emulator/handlers.js"
import * as Store from "./internal/emulator/store.js"
import { startScoped } from "./internal/scoped.js"

/**
 * The routes and faults (defined in `AcontextFault`).
 *
 * @since 0.1.0
 * @category models
 */
export type { AcontextFault, AcontextRoute } from "./AcontextFault.js"

/**
 * One request the emulator answered, in the order answers were given. `status` is
 * `"dropped"` when a fault destroyed the connection, `"aborted"` when the client went away
 * before the answer (e.g. its timeout fired during an injected latency).
 *
 * @since 0.1.0
 * @category models
 */
export interface AcontextRequestLogEntry {
  readonly route: AcontextRoute | "ping" | "unknown"
  readonly method: string
  /** The path, without the query string. */
  readonly path: string
  readonly query: Readonly<Record<string, string>>
  readonly status: number | "dropped" | "aborted"
  /** The request body: parsed JSON, or the raw text when it is not JSON; absent when empty. */
  readonly body?: unknown
  /** Whether an injected fault fired on this request (latency included). */
  readonly faulted: boolean
}

/**
 * @since 0.1.0
 * @category models
 */
export interface AcontextEmulatorOptions {
  /** TCP port; default `0` (an ephemeral port). */
  readonly port?: number | undefined
  /** Interface to listen on; default `"127.0.0.1"`. */
  readonly host?: string | undefined
  /**
   * The default project's API key (`sk-ac-…`); default: generated, or the one stored in the
   * SQLite file.
   */
  readonly apiKey?: string | undefined
  /** The second project's API key (`sk-ac-…`); same defaults as `apiKey`. */
  readonly otherProjectApiKey?: string | undefined
  /** Faults active from the start. */
  readonly faults?: ReadonlyArray<AcontextFault> | undefined
  /**
   * Where data lives: in memory (default), or in a SQLite file (created when missing) that a
   * later emulator can reopen — projects and their keys included.
   */
  readonly storage?: { readonly filename: string } | undefined
}

/**
 * Why the emulator could not start or be configured:
 * - `PortInUse`: the port is taken;
 * - `Listen`: any other failure to listen;
 * - `Storage`: the SQLite file could not be opened or initialised;
 * - `InvalidOptions`: bad options or faults (the description says which).
 *
 * @since 0.1.0
 * @category errors
 */
export const AcontextEmulatorErrorReason = Schema.Literal("PortInUse", "Listen", "Storage", "InvalidOptions")

/**
 * @since 0.1.0
 * @category errors
 */
export type AcontextEmulatorErrorReason = typeof AcontextEmulatorErrorReason.Type

/**
 * Misuse of the emulator (not an emulated API error: those are HTTP responses).
 *
 * @since 0.1.0
 * @category errors
 */
export class AcontextEmulatorError extends Schema.TaggedError<AcontextEmulatorError>(
  "@acx/testing/AcontextEmulator/AcontextEmulatorError"
)("AcontextEmulatorError", {
  reason: AcontextEmulatorErrorReason,
  description: Schema.String,
  cause: Schema.optionalWith(Schema.Defect, { exact: true })
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Acontext emulator: ${this.reason}: ${this.description}`
  }
}

/**
 * A running emulator.
 *
 * @since 0.1.0
 * @category models
 */
export interface AcontextEmulator {
  /** Base URL, `/api/v1` included, e.g. `http://127.0.0.1:41234/api/v1` (the client's `baseUrl`). */
  readonly url: string
  readonly port: number
  /** The default project's key. */
  readonly apiKey: string
  readonly projectId: string
  /** The second project's key (for 409 on another project's UUID, 403 on delete, …). */
  readonly otherProjectApiKey: string
  readonly otherProjectId: string
  /** Replaces the active faults (their counters restart). */
  readonly setFaults: (faults: ReadonlyArray<AcontextFault>) => Effect.Effect<void, AcontextEmulatorError>
  readonly clearFaults: Effect.Effect<void>
  /** The requests answered so far. */
  readonly requests: Effect.Effect<ReadonlyArray<AcontextRequestLogEntry>>
  readonly clearRequests: Effect.Effect<void>
  /** Every stored session (both projects), oldest first. */
  readonly sessions: Effect.Effect<ReadonlyArray<Acontext.Session>>
  /** The stored messages of a session, in order, as `POST …/messages` returned them (`[]` if none). */
  readonly messages: (sessionId: string) => Effect.Effect<ReadonlyArray<Acontext.Message>>
}

/**
 * @since 0.1.0
 * @category tags
 */
export const AcontextEmulator: Context.Tag<AcontextEmulator, AcontextEmulator> = Context.GenericTag<AcontextEmulator>(
  "@acx/testing/AcontextEmulator"
)

const invalid = (description: string) => new AcontextEmulatorError({ reason: "InvalidOptions", description })

const checkOptions = (options: AcontextEmulatorOptions): AcontextEmulatorError | undefined => {
  const port = options.port ?? 0
  if (!Number.isInteger(port) || port < 0 || port > 65535) return invalid(`port must be 0-65535, got ${port}`)
  for (const [name, key] of [["apiKey", options.apiKey], ["otherProjectApiKey", options.otherProjectApiKey]] as const) {
    if (key !== undefined && !(key.startsWith("sk-ac-") && key.length > "sk-ac-".length)) {
      return invalid(`${name} must start with "sk-ac-" and not be empty after it`)
    }
  }
  if (options.apiKey !== undefined && options.apiKey === options.otherProjectApiKey) {
    return invalid("apiKey and otherProjectApiKey must differ")
  }
  const faults = Faults.validate(options.faults ?? [])
  return faults === undefined ? undefined : invalid(faults)
}

const generateApiKey = () => `sk-ac-${randomBytes(24).toString("base64url")}`

/** Strictly increasing RFC 3339 timestamps with microseconds (so created_at order = insertion order). */
const makeClock = () => {
  let last = 0
  return (): string => {
    const micros = Math.max(Date.now() * 1000, last + 1)
    last = micros
    const iso = new Date(Math.floor(micros / 1000)).toISOString()
    return `${iso.slice(0, -1)}${String(micros % 1000).padStart(3, "0")}Z`
  }
}

const parseBody = (text: string): unknown => {
  if (text === "") return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

const listenError = (cause: unknown, host: string, port: number) => {
  const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : undefined
  return new AcontextEmulatorError({
    reason: code === "EADDRINUSE" ? "PortInUse" : "Listen",
    description: `cannot listen on ${host}:${port}${code === undefined ? "" : ` (${code})`}`,
    cause
  })
}

// The store the emulator keeps its sessions in: in memory, or the SQLite file of `storage`.
const openStore = (options: AcontextEmulatorOptions) =>
  options.storage === undefined
    ? Store.memory
    : Store.sqlite(options.storage.filename).pipe(
      Effect.catchAllDefect((cause) => Effect.fail(cause)),
      Effect.mapError((cause) =>
        new AcontextEmulatorError({
          reason: "Storage",
          description: `cannot open ${options.storage!.filename}`,
          cause
        })
      )
    )

// The two projects (each with its API key, given or generated), which must not share a key.
const openProjects = Effect.fnUntraced(function*(store: Store.Store, options: AcontextEmulatorOptions) {
  const project = yield* store.project(
    "default",
    { id: randomUUID(), apiKey: options.apiKey ?? generateApiKey() },
    options.apiKey
  )
  const otherProject = yield* store.project(
    "other",
    { id: randomUUID(), apiKey: options.otherProjectApiKey ?? generateApiKey() },
    options.otherProjectApiKey
  )
  if (project.apiKey === otherProject.apiKey) return yield* invalid("both projects would have the same API key")
  return { project, otherProject }
})

// What the routes share: the handlers' environment, the projects by API key, the lock that runs
// one request at a time, the faults, and the request log.
interface Emulation {
  readonly env: Handlers.Env
  readonly projectsByKey: ReadonlyMap<string, Store.ProjectRecord>
  readonly lock: Effect.Semaphore
  readonly faults: Faults.FaultBox
  readonly log: Array<AcontextRequestLogEntry>
}

// The request, its URL and its body (read once: the log and the handler both need it).
const describeRequest = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const url = new URL(request.url, "http://emulator")
  const bodyText = yield* Effect.orElseSucceed(request.text, () => "")
  return { request, url, bodyText }
})

type Described = Effect.Effect.Success<typeof describeRequest>

const record = (
  emulation: Emulation,
  route: AcontextRequestLogEntry["route"],
  described: Described,
  status: AcontextRequestLogEntry["status"],
  faulted: boolean
) =>
  Effect.sync(() => {
    const body = parseBody(described.bodyText)
    emulation.log.push({
      route,
      method: described.request.method,
      path: described.url.pathname,
      query: Object.fromEntries(described.url.searchParams),
      status,
      ...(body === undefined ? {} : { body }),
      faulted
    })
  })

const reply = (status: number, body: unknown, headers?: Readonly<Record<string, string>>) =>
  typeof body === "string"
    ? HttpServerResponse.text(body, { status, ...(headers === undefined ? {} : { headers }) })
    : HttpServerResponse.unsafeJson(body, {
      status,
      contentType: "application/json; charset=utf-8",
      ...(headers === undefined ? {} : { headers })
    })

// The route's handler for the project the bearer token names (401 without one), one at a time;
// a defect in a handler answers 500.
const handle = (emulation: Emulation, route: AcontextRoute, described: Described) =>
  Effect.gen(function*() {
    const authorization = described.request.headers["authorization"] ?? ""
    const token = authorization.startsWith("Bearer ") ? authorization.slice("Bearer ".length) : ""
    const owner = token.startsWith("sk-ac-") ? emulation.projectsByKey.get(token) : undefined
    if (owner === undefined) return { status: 401, body: { code: 401, msg: "Unauthorized" } }
    const params = yield* HttpRouter.params
    return yield* Handlers.handlers[route](emulation.env, owner, {
      query: described.url.searchParams,
      contentType: described.request.headers["content-type"] ?? "",
      bodyText: described.bodyText,
      params
    })
  }).pipe(
    emulation.lock.withPermits(1),
    Effect.catchAllDefect((defect) =>
      Effect.succeed({
        status: 500,
        body: { code: 500, msg: "internal server error", error: `acx emulator defect: ${String(defect)}` }
      })
    )
  )

// A tracked route: the fault decided for it (latency before or after the handler, a status in
// place of the answer, or a dropped connection), else the handler's answer; each request logged
// once, as `aborted` when the client left first.
const serve = (emulation: Emulation, route: AcontextRoute) =>
  Effect.gen(function*() {
    const described = yield* describeRequest
    const state = { answered: false, faulted: false }
    const answer = (status: AcontextRequestLogEntry["status"], faulted: boolean) =>
      Effect.suspend(() => {
        state.answered = true
        return record(emulation, route, described, status, faulted)
      })
    return yield* Effect.gen(function*() {
      const decision = yield* emulation.faults.decide(route)
      state.faulted = decision.faulted
      const delay = decision.latencyMs > 0 ? Effect.sleep(Duration.millis(decision.latencyMs)) : Effect.void
      if (!decision.afterEffect) yield* delay
      const fault = decision.outcome
      if (fault === undefined || decision.afterEffect) {
        const response = yield* handle(emulation, route, described)
        if (decision.afterEffect) yield* delay
        if (fault === undefined) {
          yield* answer(response.status, decision.faulted)
          return reply(response.status, response.body)
        }
      }
      if (fault._tag === "Status") {
        yield* answer(fault.status, true)
        return reply(fault.status, fault.body, fault.headers)
      }
      yield* answer("dropped", true)
      NodeHttpServerRequest.toIncomingMessage(described.request).socket.destroy()
      // The server interrupts this fiber when it sees the connection close.
      return yield* Effect.never
    }).pipe(Effect.onInterrupt(() => (state.answered ? Effect.void : answer("aborted", state.faulted))))
  })

// A route no fault applies to, logged as it is answered.
const untracked = (emulation: Emulation, route: "ping" | "unknown", status: number, body: unknown) =>
  Effect.gen(function*() {
    const described = yield* describeRequest
    yield* record(emulation, route, described, status, false)
    return reply(status, body)
  })

const router = (emulation: Emulation) =>
  HttpRouter.empty.pipe(
    HttpRouter.post("/api/v1/session", serve(emulation, "createSession")),
    HttpRouter.get("/api/v1/session", serve(emulation, "listSessions")),
    HttpRouter.del("/api/v1/session/:id", serve(emulation, "deleteSession")),
    HttpRouter.post("/api/v1/session/:id/messages", serve(emulation, "storeMessage")),
    HttpRouter.get("/api/v1/session/:id/messages", serve(emulation, "getMessages")),
    HttpRouter.get("/api/v1/ping", untracked(emulation, "ping", 200, { code: 0, msg: "pong" })),
    Effect.catchTag("RouteNotFound", (e) =>
      untracked(emulation, "unknown", 404, {
        code: 404,
        msg: "not found",
        error: `${e.request.method} ${new URL(e.request.url, "http://emulator").pathname} is not emulated`
      }))
  )

// Serves `app` on host:port in the scope; the port it got.
const listen = Effect.fnUntraced(function*(app: ReturnType<typeof router>, host: string, port: number) {
  let nodeServer: Http.Server | undefined
  const server = yield* NodeHttpServer.make(() => {
    nodeServer = Http.createServer()
    return nodeServer
  }, { port, host }).pipe(Effect.mapError((e) => listenError(e.cause, host, port)))
  // Runs before the server's own release, which waits for open connections to end.
  yield* Effect.addFinalizer(() => Effect.sync(() => nodeServer?.closeAllConnections()))
  // A real server keeps real time, even when started under a TestClock.
  yield* server.serve(app).pipe(Effect.withClock(Clock.make()))
  return server.address._tag === "TcpAddress" ? server.address.port : port
})

/**
 * Starts an emulator; it stops (connections closed, SQLite file closed) when the scope closes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  options?: AcontextEmulatorOptions
) => Effect.Effect<AcontextEmulator, AcontextEmulatorError, Scope.Scope> = Effect.fn("AcontextEmulator.make")(
  function*(options: AcontextEmulatorOptions = {}) {
    const problem = checkOptions(options)
    if (problem !== undefined) return yield* problem
    const host = options.host ?? "127.0.0.1"
    const store = yield* openStore(options)
    const { otherProject, project } = yield* openProjects(store, options)
    const faults = yield* Faults.make(options.faults ?? [])
    const emulation: Emulation = {
      env: { store, now: makeClock(), uuid: randomUUID },
      projectsByKey: new Map([[project.apiKey, project], [otherProject.apiKey, otherProject]]),
      lock: yield* Effect.makeSemaphore(1),
      faults,
      log: []
    }
    const boundPort = yield* listen(router(emulation), host, options.port ?? 0)
    const urlHost = host.includes(":") ? `[${host}]` : host
    return AcontextEmulator.of({
      url: `http://${urlHost}:${boundPort}/api/v1`,
      port: boundPort,
      apiKey: project.apiKey,
      projectId: project.id,
      otherProjectApiKey: otherProject.apiKey,
      otherProjectId: otherProject.id,
      setFaults: (list) =>
        Effect.suspend(() => {
          const error = Faults.validate(list)
          return error === undefined ? faults.set(list) : Effect.fail(invalid(error))
        }),
      clearFaults: faults.set([]),
      requests: Effect.sync(() => [...emulation.log]),
      clearRequests: Effect.sync(() => {
        emulation.log.length = 0
      }),
      sessions: Effect.map(store.allSessions, (all) => all.map(Handlers.sessionDto)),
      messages: (sessionId) => Effect.map(store.listMessages(sessionId), (all) => all.map(Handlers.messageDto))
    })
  }
)

/**
 * A layer running an emulator for the layer's lifetime.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: AcontextEmulatorOptions): Layer.Layer<AcontextEmulator, AcontextEmulatorError> =>
  Layer.scoped(AcontextEmulator, make(options))

/**
 * A running emulator, Promise side. `close()` (or `await using`) stops it.
 *
 * @since 0.1.0
 * @category models
 */
export interface AcontextEmulatorHandle
  extends
    AsyncDisposable,
    Pick<AcontextEmulator, "url" | "port" | "apiKey" | "projectId" | "otherProjectApiKey" | "otherProjectId">
{
  /** Stops the server and closes the storage; idempotent. */
  readonly close: () => Promise<void>
  /** Replaces the active faults; rejects with an `AcontextEmulatorError` when one is invalid. */
  readonly setFaults: (faults: ReadonlyArray<AcontextFault>) => Promise<void>
  readonly clearFaults: () => Promise<void>
  readonly requests: () => Promise<ReadonlyArray<AcontextRequestLogEntry>>
  readonly clearRequests: () => Promise<void>
  readonly sessions: () => Promise<ReadonlyArray<Acontext.Session>>
  readonly messages: (sessionId: string) => Promise<ReadonlyArray<Acontext.Message>>
}

const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> =>
  Effect.runPromiseExit(effect).then((exit) =>
    Exit.isSuccess(exit) ? exit.value : Promise.reject(Cause.squash(exit.cause))
  )

/**
 * Starts an emulator (Promise API). Rejects with an {@link AcontextEmulatorError} when it
 * cannot start.
 *
 * @since 0.1.0
 * @category constructors
 */
export const startAcontextEmulator = async (options?: AcontextEmulatorOptions): Promise<AcontextEmulatorHandle> => {
  const { close, service: emulator } = await startScoped(make(options))
  return {
    url: emulator.url,
    port: emulator.port,
    apiKey: emulator.apiKey,
    projectId: emulator.projectId,
    otherProjectApiKey: emulator.otherProjectApiKey,
    otherProjectId: emulator.otherProjectId,
    close,
    [Symbol.asyncDispose]: close,
    setFaults: (faults) => run(emulator.setFaults(faults)),
    clearFaults: () => run(emulator.clearFaults),
    requests: () => run(emulator.requests),
    clearRequests: () => run(emulator.clearRequests),
    sessions: () => run(emulator.sessions),
    messages: (sessionId) => run(emulator.messages(sessionId))
  }
}
