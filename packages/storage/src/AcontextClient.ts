/**
 * The Acontext REST client: sessions and messages, over `@effect/platform`'s `HttpClient`
 * (any implementation: `FetchHttpClient.layer` from `@effect/platform` on Node 20+, or
 * `NodeHttpClient.layerUndici` from `@effect/platform-node`).
 *
 * Every response is decoded with Schema from Acontext's `{code, data, msg, error?}` envelope;
 * every failure is an {@link AcontextError}. Transient failures (transport, timeout, 408, 429,
 * 5xx) are retried with a jittered exponential schedule (configurable, or `retry: false`). The
 * API key is `Redacted` and the `Authorization` header is redacted in logs and spans.
 *
 * @example
 * ```ts
 * import { AcontextClient } from "@acx/storage"
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect, Layer } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* AcontextClient.AcontextClient
 *   const session = yield* client.createSession({ user: "alice@example.com" })
 *   yield* client.storeMessage(session.id, { role: "user", content: [{ type: "text", text: "Hi" }] })
 * })
 * // ACONTEXT_API_KEY, ACONTEXT_BASE_URL, ACONTEXT_TIMEOUT
 * program.pipe(Effect.provide(AcontextClient.layerConfig().pipe(Layer.provide(FetchHttpClient.layer))))
 * ```
 *
 * @since 0.1.0
 */
import * as Acontext from "@acx/schema/Acontext"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Chunk from "effect/Chunk"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import { pipe } from "effect/Function"
import { globalValue } from "effect/GlobalValue"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Redacted_ from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { DEFAULT_BASE_URL } from "./AcontextDefaults.js"
import type { AcontextError } from "./AcontextError.js"
import { failure, readEnvelope } from "./internal/envelope.js"
import { storeOnce } from "./internal/storeOnce.js"

/**
 * Acontext's hosted API, `/api/v1` included (a plain constant in `AcontextDefaults`).
 *
 * @since 0.1.0
 * @category constants
 */
export { DEFAULT_BASE_URL } from "./AcontextDefaults.js"

/**
 * Per-request timeout when none is configured.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_TIMEOUT: Duration.Duration = Duration.seconds(60)

/**
 * The default retry policy: exponential from 100 ms (×2), jittered, at most 4 retries.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultRetrySchedule: Schedule.Schedule<unknown, AcontextError> = Schedule.exponential("100 millis").pipe(
  Schedule.jittered,
  Schedule.intersect(Schedule.recurs(4))
)

/**
 * Counts request attempts (first try and retries) made by the current fiber: reset it to 0,
 * call the client, read it back (ClaudeAgentStorage logs it with every save).
 *
 * @since 0.1.0
 * @category fiber refs
 */
export const currentAttempts: FiberRef.FiberRef<number> = globalValue(
  Symbol.for("@acx/storage/AcontextClient/currentAttempts"),
  () => FiberRef.unsafeMake(0)
)

/**
 * @since 0.1.0
 * @category models
 */
export interface AcontextClientOptions {
  /** A project API key (`sk-ac-…`). */
  readonly apiKey: Redacted.Redacted
  /** Default {@link DEFAULT_BASE_URL}; a trailing `/` is ignored. */
  readonly baseUrl?: string | undefined
  /** Per-request (per-attempt) timeout; default {@link DEFAULT_TIMEOUT}. */
  readonly timeout?: Duration.DurationInput | undefined
  /**
   * Retry schedule for transient failures, or `false` to never retry. Default
   * {@link defaultRetrySchedule}.
   */
  readonly retry?: Schedule.Schedule<unknown, AcontextError> | false | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface CreateSessionOptions {
  /** Create (or, if it already exists in this project, return) the session with this UUID. */
  readonly useUuid?: string | null | undefined
  /** Attach the session to a user (created on first use); empty strings are omitted. */
  readonly user?: string | null | undefined
  readonly disableTaskTracking?: boolean | undefined
  readonly configs?: { readonly [key: string]: unknown } | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface StoreMessageOptions {
  /** Default `"anthropic"`. */
  readonly format?: Acontext.MessageFormat | undefined
  /** Omitted from the request when `null` or `undefined`. */
  readonly meta?: { readonly [key: string]: unknown } | null | undefined
}

/**
 * Options of {@link AcontextClient.storeMessageOnce}: where the message goes in the session.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoreMessageOnceOptions extends StoreMessageOptions {
  /**
   * The id of the session's newest message before this one, as the caller last saw it (the
   * previous store's answer); `null` for an empty session; omitted when not known.
   */
  readonly after?: string | null | undefined
  /**
   * A previous attempt to store this message may have been applied without an answer (it
   * failed ambiguously, or the process stopped while it was in flight): read the tail first.
   */
  readonly inDoubt?: boolean | undefined
}

/**
 * What {@link AcontextClient.storeMessageOnce} did.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoredOnce {
  /** The stored message's id. */
  readonly id: string
  /** The message was found already stored by an attempt whose answer was lost: not stored again. */
  readonly found: boolean
  /** Tail reads made to reconcile (each one or two `GET …/messages`). */
  readonly reads: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface GetMessagesOptions {
  /** Default `"anthropic"` (the server's own default is `"openai"`). */
  readonly format?: Acontext.MessageFormat | undefined
  /** 1–200 messages per page; omitted means all messages. */
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
  readonly timeDesc?: boolean | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ListSessionsOptions {
  readonly user?: string | undefined
  /** 1–200, server default 20. */
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
  readonly timeDesc?: boolean | undefined
}

/**
 * One stored message as read back, with its id and user meta.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoredMessage {
  readonly id: string
  readonly message: unknown
  readonly meta: { readonly [key: string]: unknown }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface AcontextClient {
  readonly baseUrl: string
  /** `POST /session`: 201 created, or 200 when `useUuid` already exists in this project. */
  readonly createSession: (options?: CreateSessionOptions) => Effect.Effect<Acontext.Session, AcontextError>
  /** `DELETE /session/{id}`. */
  readonly deleteSession: (sessionId: string) => Effect.Effect<void, AcontextError>
  /** `GET /session`: one page of sessions. */
  readonly listSessions: (options?: ListSessionsOptions) => Effect.Effect<Acontext.ListSessionsOutput, AcontextError>
  /** `POST /session/{id}/messages`. */
  readonly storeMessage: (
    sessionId: string,
    blob: unknown,
    options?: StoreMessageOptions
  ) => Effect.Effect<Acontext.Message, AcontextError>
  /**
   * `POST /session/{id}/messages` exactly once: the store is retried like `storeMessage`, but
   * after an ambiguous failure (no answer, a timeout or a 5xx: the server may have stored it)
   * the session's tail is read first ({@link AcontextClient.newestMessages}) and, when the
   * message is there (`Reconcile.verdict`), it is not stored again. Costs one tail read
   * per ambiguous failure, nothing otherwise.
   */
  readonly storeMessageOnce: (
    sessionId: string,
    blob: unknown,
    options?: StoreMessageOnceOptions
  ) => Effect.Effect<StoredOnce, AcontextError>
  /**
   * The session's newest messages, oldest first: the two newest (fewer in a shorter session),
   * plus any stored meanwhile. One `GET` for a session of up to one message, two otherwise
   * (Acontext sorts a newest-first page oldest-first before cutting it, so that page never
   * holds the newest message; the second read continues from its cursor).
   */
  readonly newestMessages: (sessionId: string) => Effect.Effect<ReadonlyArray<StoredMessage>, AcontextError>
  /** `GET /session/{id}/messages`: one page. */
  readonly getMessages: (
    sessionId: string,
    options?: GetMessagesOptions
  ) => Effect.Effect<Acontext.GetMessagesOutput, AcontextError>
  /** Every message of a session, page by page (`pageSize` default 100). */
  readonly messages: (
    sessionId: string,
    options?: Omit<GetMessagesOptions, "limit" | "cursor"> & { readonly pageSize?: number | undefined }
  ) => Stream.Stream<StoredMessage, AcontextError>
}

/**
 * @since 0.1.0
 * @category tags
 */
export const AcontextClient: Context.Tag<AcontextClient, AcontextClient> = Context.GenericTag<AcontextClient>(
  "@acx/storage/AcontextClient"
)

const trimSlash = (url: string): string => url.replace(/\/+$/, "")

const compact = (entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> =>
  Object.fromEntries(entries.filter(([, value]) => value !== undefined && value !== null))

const urlParams = (entries: ReadonlyArray<readonly [string, string | number | boolean | undefined]>) =>
  entries.flatMap(([key, value]) => (value === undefined ? [] : [[key, String(value)] as const]))

/** One API call: sent, its envelope read, timed out and retried (unless `retried` is false). */
type Run = <A, I>(
  operation: string,
  request: HttpClientRequest.HttpClientRequest,
  data: Schema.Schema<A, I>,
  attributes?: Record<string, unknown>,
  retried?: boolean
) => Effect.Effect<A, AcontextError>

interface Transport {
  readonly baseUrl: string
  readonly timeout: Duration.Duration
  readonly retry: Schedule.Schedule<unknown, AcontextError> | false
  readonly http: HttpClient.HttpClient
}

// The `HttpClient` in context, with the base URL, the bearer key and the JSON headers on every request.
const transport = (options: AcontextClientOptions): Effect.Effect<Transport, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const baseUrl = trimSlash(options.baseUrl ?? DEFAULT_BASE_URL)
    const http = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) =>
        pipe(
          request,
          HttpClientRequest.prependUrl(baseUrl),
          HttpClientRequest.bearerToken(options.apiKey),
          HttpClientRequest.acceptJson,
          HttpClientRequest.setHeader("user-agent", "acx/0.1.0")
        )
      )
    )
    return {
      baseUrl,
      timeout: Duration.decode(options.timeout ?? DEFAULT_TIMEOUT),
      retry: options.retry ?? defaultRetrySchedule,
      http
    }
  })

const runOn = ({ baseUrl, http, retry, timeout }: Transport): Run =>
(
  operation,
  request,
  data,
  attributes = {},
  retried = true
) => {
  // The attempt counter is updated outside `timeoutFail` (which runs its effect in a child
  // fiber whose FiberRefs are only merged back on success), so failed attempts count too.
  const attempt = FiberRef.update(currentAttempts, (n) => n + 1).pipe(
    Effect.zipRight(
      http.execute(request).pipe(
        Effect.mapError((cause) =>
          failure(operation, {
            reason: cause._tag === "RequestError" ? "Transport" : "Decode",
            description: cause.message,
            // Never the platform error itself: it holds the request, Authorization header included.
            ...(cause.cause === undefined ? {} : { cause: cause.cause })
          })
        ),
        Effect.flatMap((response) => readEnvelope(operation, response, data)),
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () =>
            failure(operation, { reason: "Timeout", description: `no answer within ${Duration.format(timeout)}` })
        })
      )
    )
  )
  const attempts = retry === false || !retried
    ? attempt
    : Effect.retry(attempt, { schedule: retry, while: (error) => error.isTransient })
  return attempts.pipe(
    Effect.withSpan(`AcontextClient.${operation}`, {
      kind: "client",
      attributes: { "acontext.base_url": baseUrl, ...attributes }
    })
  )
}

const sessionCalls = (run: Run) => ({
  createSession: (options: CreateSessionOptions = {}) =>
    run(
      "createSession",
      HttpClientRequest.post("/session").pipe(HttpClientRequest.bodyUnsafeJson(compact([
        ["use_uuid", options.useUuid],
        ["user", options.user === "" ? undefined : options.user],
        ["disable_task_tracking", options.disableTaskTracking],
        ["configs", options.configs]
      ]))),
      Acontext.Session,
      { "acontext.use_uuid": options.useUuid ?? "" }
    ),
  deleteSession: (sessionId: string) =>
    run("deleteSession", HttpClientRequest.del(`/session/${encodeURIComponent(sessionId)}`), Schema.Unknown, {
      "acontext.session_id": sessionId
    }).pipe(Effect.asVoid),
  listSessions: (options: ListSessionsOptions = {}) =>
    run(
      "listSessions",
      HttpClientRequest.get("/session").pipe(HttpClientRequest.setUrlParams(urlParams([
        ["user", options.user],
        ["limit", options.limit],
        ["cursor", options.cursor],
        ["time_desc", options.timeDesc]
      ]))),
      Acontext.ListSessionsOutput
    )
})

const messageCalls = (run: Run) => ({
  storeMessage: (sessionId: string, blob: unknown, options: StoreMessageOptions = {}, retried = true) =>
    run(
      "storeMessage",
      HttpClientRequest.post(`/session/${encodeURIComponent(sessionId)}/messages`).pipe(
        HttpClientRequest.bodyUnsafeJson(compact([
          ["format", options.format ?? "anthropic"],
          ["meta", options.meta],
          ["blob", blob]
        ]))
      ),
      Acontext.Message,
      { "acontext.session_id": sessionId },
      retried
    ),
  getMessages: (sessionId: string, options: GetMessagesOptions = {}) =>
    run(
      "getMessages",
      HttpClientRequest.get(`/session/${encodeURIComponent(sessionId)}/messages`).pipe(
        HttpClientRequest.setUrlParams(urlParams([
          ["format", options.format ?? "anthropic"],
          ["limit", options.limit],
          ["cursor", options.cursor],
          ["time_desc", options.timeDesc]
        ]))
      ),
      Acontext.GetMessagesOutput,
      { "acontext.session_id": sessionId }
    )
})

const storedOf = (page: Acontext.GetMessagesOutput): Array<StoredMessage> =>
  page.items.map((message, index) => ({ id: page.ids[index] ?? "", message, meta: page.metas[index] ?? {} }))

const messagesOf = (getMessages: AcontextClient["getMessages"]): AcontextClient["messages"] =>
(
  sessionId,
  options = {}
) =>
  Stream.paginateChunkEffect(undefined as string | undefined, (cursor) =>
    getMessages(sessionId, {
      format: options.format,
      timeDesc: options.timeDesc,
      limit: options.pageSize ?? 100,
      cursor
    }).pipe(Effect.map((page) =>
      [
        Chunk.fromIterable(storedOf(page)),
        page.has_more && typeof page.next_cursor === "string" && page.next_cursor !== ""
          ? Option.some(page.next_cursor)
          : Option.none()
      ] as const
    )))

const newestMessagesOf = (getMessages: AcontextClient["getMessages"]) => (sessionId: string) =>
  Effect.gen(function*() {
    const first = yield* getMessages(sessionId, { limit: 1, timeDesc: true })
    const tail = storedOf(first)
    let cursor = first.has_more ? first.next_cursor : undefined
    // Messages stored meanwhile extend the tail; a session written that fast is read up
    // to 10 pages on, which is enough to see the message just stored.
    for (let page = 0; page < 10 && typeof cursor === "string" && cursor !== ""; page++) {
      const next = yield* getMessages(sessionId, { limit: 100, cursor })
      tail.push(...storedOf(next))
      cursor = next.has_more ? next.next_cursor : undefined
    }
    return tail
  }).pipe(Effect.withSpan("AcontextClient.newestMessages", { attributes: { "acontext.session_id": sessionId } }))

// Stores a message unless the session already holds it (see `internal/storeOnce`).
const storeMessageOnceOf = (
  calls: ReturnType<typeof messageCalls>,
  newestMessages: AcontextClient["newestMessages"],
  retry: Schedule.Schedule<unknown, AcontextError> | false
) =>
(sessionId: string, blob: unknown, options: StoreMessageOnceOptions = {}) => {
  const { after, inDoubt, ...storeOptions } = options
  return storeOnce({
    blob,
    meta: options.meta ?? null,
    after,
    inDoubt: inDoubt === true,
    store: calls.storeMessage(sessionId, blob, storeOptions, false),
    tail: newestMessages(sessionId),
    retry
  }).pipe(
    Effect.withSpan("AcontextClient.storeMessageOnce", { attributes: { "acontext.session_id": sessionId } })
  )
}

/**
 * Builds the client from options, on the `HttpClient` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options: AcontextClientOptions) => Effect.Effect<AcontextClient, never, HttpClient.HttpClient> =
  Effect.fnUntraced(function*(options: AcontextClientOptions) {
    const wire = yield* transport(options)
    const run = runOn(wire)
    const messages = messageCalls(run)
    const newestMessages = newestMessagesOf(messages.getMessages)
    return AcontextClient.of({
      baseUrl: wire.baseUrl,
      ...sessionCalls(run),
      storeMessage: (sessionId, blob, options) => messages.storeMessage(sessionId, blob, options),
      storeMessageOnce: storeMessageOnceOf(messages, newestMessages, wire.retry),
      newestMessages,
      getMessages: messages.getMessages,
      messages: messagesOf(messages.getMessages)
    })
  })

/**
 * The client as a layer, on any `HttpClient`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: AcontextClientOptions): Layer.Layer<AcontextClient, never, HttpClient.HttpClient> =>
  Layer.effect(AcontextClient, make(options))

/**
 * Settings for {@link layerConfig}, each a `Config`; a field left out is read from the
 * environment.
 *
 * @since 0.1.0
 * @category configuration
 */
export interface AcontextClientConfig {
  readonly apiKey?: Config.Config<Redacted.Redacted> | undefined
  readonly baseUrl?: Config.Config<string | undefined> | undefined
  readonly timeout?: Config.Config<Duration.DurationInput | undefined> | undefined
  readonly retry?: Config.Config<Schedule.Schedule<unknown, AcontextError> | false | undefined> | undefined
}

const nonBlankKey = (key: Redacted.Redacted): boolean => Redacted_.value(key).trim() !== ""

/**
 * Each setting as Acontext's own client reads it: the explicit value when given, else its
 * environment variable, else the default. An empty or blank key is an error, as there.
 */
const settings = (explicit: AcontextClientConfig): Config.Config<AcontextClientOptions> =>
  Config.all({
    apiKey: (explicit.apiKey ?? Config.redacted("ACONTEXT_API_KEY")).pipe(
      Config.validate({
        message: "the Acontext API key is empty (set ACONTEXT_API_KEY or pass apiKey)",
        validation: nonBlankKey
      })
    ),
    // set but empty (`ACONTEXT_BASE_URL=` in a .env file) counts as unset, not as a relative URL
    baseUrl: explicit.baseUrl ?? Config.option(Config.string("ACONTEXT_BASE_URL")).pipe(
      Config.map((url) =>
        Option.getOrElse(Option.filter(url, (value) => value.trim() !== ""), (): string => DEFAULT_BASE_URL)
      )
    ),
    timeout: explicit.timeout ?? Config.integer("ACONTEXT_TIMEOUT").pipe(
      Config.map((ms): Duration.DurationInput | undefined => Duration.millis(ms)),
      Config.withDefault(DEFAULT_TIMEOUT)
    ),
    retry: explicit.retry ?? Config.succeed(undefined)
  })

/**
 * The client's settings from the environment: `ACONTEXT_API_KEY` (redacted, required, not
 * blank), `ACONTEXT_BASE_URL` (default {@link DEFAULT_BASE_URL}), `ACONTEXT_TIMEOUT`
 * (milliseconds, default 60 000) — the variables Acontext's own client reads.
 *
 * @since 0.1.0
 * @category configuration
 */
export const config: Config.Config<AcontextClientOptions> = settings({})

/**
 * The client's settings with explicit values first: each field given (a `Config`, e.g.
 * `Config.succeed(…)`) wins, each field left out is read from the environment as in
 * {@link config} — the order Acontext's own client follows (option, then environment, then
 * default).
 *
 * @since 0.1.0
 * @category configuration
 */
export const configWith = (
  explicit: AcontextClientConfig | Config.Config<AcontextClientOptions>
): Config.Config<AcontextClientOptions> => Config.isConfig(explicit) ? explicit : settings(explicit)

/**
 * The client as a layer, its options read from `Config`: each field given wins, each field left
 * out comes from the environment (`ACONTEXT_API_KEY`, `ACONTEXT_BASE_URL`, `ACONTEXT_TIMEOUT`;
 * see {@link configWith}); a whole `Config` is used as it is.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  options: AcontextClientConfig | Config.Config<AcontextClientOptions> = config
): Layer.Layer<AcontextClient, ConfigError.ConfigError, HttpClient.HttpClient> =>
  Layer.effect(AcontextClient, Effect.flatMap(configWith(options), make))

/**
 * Makes a `Redacted` API key from a plain string (for the Promise facade and tests).
 *
 * @since 0.1.0
 * @category constructors
 */
export const apiKey = (key: string): Redacted.Redacted => Redacted_.make(key)
