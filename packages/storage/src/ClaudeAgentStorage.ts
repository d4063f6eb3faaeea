/**
 * Persist a Claude Agent SDK message stream into Acontext, in Anthropic format.
 *
 * `save(message)` follows the rules of Acontext's own integrations (only user and assistant
 * messages are stored; the session id comes from the stream; the Acontext session is created
 * lazily) with the decisions of docs/design.md ("Behaviour decisions for ClaudeAgentStorage"),
 * all decided by `@acx/convert`'s pure `Decider`; this module only
 * performs the I/O. Saves are serialised, so messages are stored in the order they were saved
 * even when several fibers save at once.
 *
 * Failures never break the caller's loop unless asked: the error policy is `"log"` (default),
 * `"fail"` (a typed {@link StorageError} in the error channel) or a handler Effect; every failure
 * is also published on `failures`. With an {@link Outbox} in context, messages are journaled to
 * SQLite first and delivered by a background fiber (in order, surviving restarts).
 *
 * @example
 * ```ts
 * import { AcontextClient, ClaudeAgentStorage } from "@acx/storage"
 * import { FetchHttpClient } from "@effect/platform"
 * import { query } from "@anthropic-ai/claude-agent-sdk"
 * import { Effect, Layer, Stream } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const storage = yield* ClaudeAgentStorage.ClaudeAgentStorage
 *   yield* Stream.fromAsyncIterable(query({ prompt: "Fix the test" }), (e) => e).pipe(
 *     storage.tap, // persisted while consumed
 *     Stream.runForEach((message) => Effect.log(message.type))
 *   )
 * })
 * program.pipe(Effect.provide(ClaudeAgentStorage.layer({}).pipe(
 *   Layer.provide(AcontextClient.layerConfig()),
 *   Layer.provide(FetchHttpClient.layer)
 * )))
 * ```
 *
 * @since 0.1.0
 */
import * as Decider from "@acx/convert/Decider"
import type * as AnthropicBlob from "@acx/schema/AnthropicBlob"
import * as SessionId from "@acx/schema/SessionId"
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import { AcontextClient } from "./AcontextClient.js"
import { type Delivery, type DeliveryFailure, fromAcontextClient } from "./Delivery.js"
import { Outbox } from "./Outbox.js"
import { StorageError } from "./StorageError.js"

/**
 * What happens when a message cannot be stored:
 * - `"log"` (default): a warning is logged and `save` succeeds — the caller's loop never breaks;
 * - `"fail"`: `save` fails with the {@link StorageError};
 * - a handler: runs with the error and the converted blob; `save` then succeeds (a handler that
 *   fails or dies is logged, never propagated).
 *
 * @since 0.1.0
 * @category models
 */
export type ErrorPolicy =
  | "log"
  | "fail"
  | ((error: StorageError, blob: AnthropicBlob.AnthropicBlob) => Effect.Effect<void, unknown>)

/**
 * @since 0.1.0
 * @category models
 */
export interface ClaudeAgentStorageOptions extends Decider.DeciderOptions {
  /** An existing Acontext session id (a UUID); otherwise resolved from the stream or created. */
  readonly sessionId?: string | null | undefined
  /** Forwarded to session creation. */
  readonly user?: string | null | undefined
  /** Default `"log"`. */
  readonly onError?: ErrorPolicy | undefined
}

/**
 * What `save` did with a message.
 *
 * @since 0.1.0
 * @category models
 */
export type SaveOutcome =
  | { readonly _tag: "Stored"; readonly sessionId: string; readonly attempts: number }
  | { readonly _tag: "Queued"; readonly sessionId: string }
  | { readonly _tag: "SessionResolved"; readonly sessionId: string }
  | { readonly _tag: "Skipped"; readonly reason: Decider.SkipReason; readonly detail: string }
  | { readonly _tag: "Failed"; readonly error: StorageError }

/**
 * @since 0.1.0
 * @category models
 */
export interface ClaudeAgentStorage {
  /** Stores one SDK message (TS or Python shape) when it should be; see {@link SaveOutcome}. */
  readonly save: (message: unknown) => Effect.Effect<SaveOutcome, StorageError>
  /** The Acontext session id, once known. */
  readonly sessionId: Effect.Effect<string | null>
  /** The same, synchronously (for the Promise facade's getter). */
  readonly unsafeSessionId: () => string | null
  /** The decider state (session id, ensured flag, stored user uuids). */
  readonly state: Effect.Effect<Decider.StorageState>
  /** Saves every element of a stream (`Stream.run(stream, storage.sink)`). */
  readonly sink: Sink.Sink<void, unknown, never, StorageError>
  /** Passes a stream through unchanged, saving each element on the way. */
  readonly tap: <A, E, R>(self: Stream.Stream<A, E, R>) => Stream.Stream<A, E | StorageError, R>
  /** Every failure, as it happens (subscribe before saving to see them all). */
  readonly failures: Stream.Stream<StorageError>
  /** Waits until the outbox (if any) has delivered everything journaled so far. */
  readonly flush: Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category tags
 */
export const ClaudeAgentStorage: Context.Tag<ClaudeAgentStorage, ClaudeAgentStorage> = Context.GenericTag<
  ClaudeAgentStorage
>("@acx/storage/ClaudeAgentStorage")

// Total: a span attribute must never throw (e.g. on a `type` with a null prototype).
const messageType = (message: unknown): string => {
  if (typeof message !== "object" || message === null) return typeof message
  const type = (message as { readonly type?: unknown }).type
  return typeof type === "string" ? type : typeof type
}

const blobOf = (error: StorageError): AnthropicBlob.AnthropicBlob => error.blob as AnthropicBlob.AnthropicBlob

/** Runs an `onError` handler; one that fails or dies is logged, never propagated. */
const runHandler = (
  handler: Extract<ErrorPolicy, (...args: ReadonlyArray<never>) => unknown>,
  error: StorageError
): Effect.Effect<void> =>
  Effect.suspend(() => handler(error, blobOf(error))).pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("acx onError handler failed", cause))
  )

/** Publishes a failure, then applies the policy: `save` fails, logs, or runs the handler. */
const reportWith =
  (hub: PubSub.PubSub<StorageError>, policy: ErrorPolicy) =>
  (error: StorageError): Effect.Effect<SaveOutcome, StorageError> =>
    PubSub.publish(hub, error).pipe(
      Effect.zipRight(
        policy === "fail"
          ? Effect.fail(error)
          : policy === "log"
          ? Effect.logWarning(error.message).pipe(
            Effect.annotateLogs({ "acx.session_id": error.sessionId ?? "", "acx.reason": error.reason })
          )
          : runHandler(policy, error)
      ),
      Effect.as<SaveOutcome>({ _tag: "Failed", error })
    )

type StoreDecision = Extract<Decider.Decision, { _tag: "Store" }>

/** What the store steps of `save` work with. */
interface Saver {
  readonly delivery: Delivery
  readonly user: string | null
  /** Applies an event to the decider state; the new state. */
  readonly evolve: (event: Decider.StorageEvent) => Effect.Effect<Decider.StorageState>
  readonly report: (error: StorageError) => Effect.Effect<SaveOutcome, StorageError>
}

const deliveryFailed = (
  saver: Saver,
  reason: StorageError["reason"],
  sessionId: string | null,
  decision: StoreDecision,
  failure: DeliveryFailure
) =>
  saver.report(
    new StorageError({
      reason,
      sessionId,
      blob: decision.blob,
      meta: decision.meta,
      attempts: failure.attempts,
      cause: failure.error
    })
  )

/** The message is stored: the decider records it, `save` answers `outcome`. */
const recordStored = (saver: Saver, decision: StoreDecision, outcome: SaveOutcome) =>
  saver.evolve(Decider.StorageEvent.MessageStored({ role: decision.role, uuid: decision.uuid })).pipe(
    Effect.as(outcome)
  )

/** Stores straight to the delivery target, creating the session first when it is not yet. */
const storeDirect = (saver: Saver, current: Decider.StorageState, decision: StoreDecision) =>
  Effect.gen(function*() {
    let ensured = current
    if (!current.ensured) {
      const created = yield* Effect.either(saver.delivery.createSession(current.sessionId, saver.user))
      if (created._tag === "Right") {
        ensured = yield* saver.evolve(
          Decider.StorageEvent.SessionEnsured({ id: SessionId.unsafeMake(created.right.value.id) })
        )
      } else if (created.left.conflict && current.sessionId !== null) {
        // 409: the UUID exists (a create race): continue with it.
        ensured = yield* saver.evolve(Decider.StorageEvent.SessionEnsured({ id: current.sessionId }))
      } else {
        return yield* deliveryFailed(saver, "CreateSession", current.sessionId, decision, created.left)
      }
    }
    const sessionId = ensured.sessionId as string
    return yield* saver.delivery.storeMessage(sessionId, decision.blob, decision.meta).pipe(
      Effect.matchEffect({
        onFailure: (failure) => deliveryFailed(saver, "StoreMessage", sessionId, decision, failure),
        onSuccess: ({ attempts }) => recordStored(saver, decision, { _tag: "Stored", sessionId, attempts })
      })
    )
  })

/** Journals the message in the outbox, naming the session first when the stream has not. */
const storeQueued = (saver: Saver, queue: Outbox, current: Decider.StorageState, decision: StoreDecision) =>
  Effect.gen(function*() {
    // Journaled messages must all target one session, known before delivery: when the
    // stream has not named one yet, acx names it (Acontext's create accepts the UUID).
    const sessionId = current.sessionId ??
      (yield* saver.evolve(Decider.StorageEvent.SessionResolved({ id: SessionId.unsafeMake(randomUUID()) })))
        .sessionId as string
    return yield* queue.enqueue({ sessionId, user: saver.user, blob: decision.blob, meta: decision.meta }).pipe(
      Effect.matchEffect({
        onFailure: (cause) =>
          saver.report(
            new StorageError({
              reason: "Journal",
              sessionId,
              blob: decision.blob,
              meta: decision.meta,
              attempts: 1,
              cause
            })
          ),
        onSuccess: () => recordStored(saver, decision, { _tag: "Queued", sessionId })
      })
    )
  })

/**
 * Every save is logged at debug level; checking the level first keeps the cost (building the
 * annotations) off the hot path when debug logging is off, the default.
 */
const logSave = (outcome: SaveOutcome, sessionId: string | null) =>
  FiberRef.getWith(FiberRef.currentMinimumLogLevel, (level) =>
    LogLevel.greaterThan(level, LogLevel.Debug)
      ? Effect.void
      : Effect.logDebug("acx save").pipe(Effect.annotateLogs({
        "acx.outcome": outcome._tag,
        "acx.session_id": sessionId ?? "",
        "acx.attempts": outcome._tag === "Stored"
          ? outcome.attempts
          : outcome._tag === "Failed"
          ? outcome.error.attempts
          : 0
      })))

/** What `save` does with the decider's decision. */
const applyDecision = (
  saver: Saver,
  outbox: Option.Option<Outbox>,
  current: Decider.StorageState,
  decision: Decider.Decision
): Effect.Effect<SaveOutcome, StorageError> => {
  switch (decision._tag) {
    case "Skip":
      return Effect.as(
        decision.reason === "InvalidSessionId" ? Effect.logWarning(decision.detail) : Effect.void,
        { _tag: "Skipped", reason: decision.reason, detail: decision.detail } as const
      )
    case "ResolveSession":
      return Effect.as(
        saver.evolve(Decider.StorageEvent.SessionResolved({ id: decision.id })),
        { _tag: "SessionResolved", sessionId: decision.id } as const
      )
    case "Store":
      return Option.match(outbox, {
        onNone: () => storeDirect(saver, current, decision),
        onSome: (queue) => storeQueued(saver, queue, current, decision)
      })
  }
}

/**
 * The outbox reports permanent delivery failures after `save` returned: the policy still applies
 * (a "fail" policy cannot fail a save that already succeeded, so those are logged by the outbox).
 */
const handleOutboxFailures = (queue: Outbox, policy: ErrorPolicy) =>
  Effect.gen(function*() {
    yield* Effect.forkScoped(
      Stream.runForEach(
        queue.failures,
        (error) => policy === "fail" || policy === "log" ? Effect.void : runHandler(policy, error)
      )
    )
    yield* Effect.yieldNow()
  })

/**
 * Builds the storage on a {@link Delivery} target (use {@link layer} for acx's
 * `AcontextClient`). Fails with `InvalidSessionId` when `options.sessionId` is not a UUID. The
 * scope owns the failures hub.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: ClaudeAgentStorageOptions,
  delivery: Delivery,
  outbox: Option.Option<Outbox> = Option.none()
): Effect.Effect<ClaudeAgentStorage, Decider.InvalidSessionId, Scope.Scope> =>
  Effect.gen(function*() {
    const initial = yield* Decider.initialState({ sessionId: options.sessionId })
    const state = yield* Ref.make(initial)
    let latestSessionId: string | null = initial.sessionId
    const hub = yield* Effect.acquireRelease(PubSub.unbounded<StorageError>(), PubSub.shutdown)
    const lock = yield* Effect.makeSemaphore(1)
    const policy: ErrorPolicy = options.onError ?? "log"
    const saver: Saver = {
      delivery,
      user: options.user ?? null,
      evolve: (event) =>
        Ref.updateAndGet(state, (s) => Decider.evolve(s, event)).pipe(
          Effect.tap((s) => {
            latestSessionId = s.sessionId
          })
        ),
      report: reportWith(hub, policy)
    }

    const save = (message: unknown): Effect.Effect<SaveOutcome, StorageError> =>
      lock.withPermits(1)(
        Effect.flatMap(
          Ref.get(state),
          (current) => applyDecision(saver, outbox, current, Decider.decide(current, message, options))
        )
      ).pipe(
        Effect.tap((outcome) => logSave(outcome, latestSessionId)),
        Effect.withSpan("ClaudeAgentStorage.save", { attributes: { "acx.message_type": messageType(message) } })
      )

    if (Option.isSome(outbox)) yield* handleOutboxFailures(outbox.value, policy)

    return ClaudeAgentStorage.of({
      save,
      sessionId: Effect.sync(() => latestSessionId),
      unsafeSessionId: () => latestSessionId,
      state: Ref.get(state),
      sink: Sink.forEach((message: unknown) => save(message)),
      tap: (self) => Stream.tap(self, save),
      failures: Stream.merge(
        Stream.fromPubSub(hub),
        Option.match(outbox, { onNone: () => Stream.empty, onSome: (queue) => queue.failures })
      ),
      flush: Option.match(outbox, { onNone: () => Effect.void, onSome: (queue) => queue.flush })
    })
  })

/**
 * The storage as a layer on acx's {@link AcontextClient}; uses the {@link Outbox} when one is
 * in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: ClaudeAgentStorageOptions = {}
): Layer.Layer<ClaudeAgentStorage, Decider.InvalidSessionId, AcontextClient> =>
  Layer.scoped(
    ClaudeAgentStorage,
    Effect.gen(function*() {
      const client = yield* AcontextClient
      const outbox = yield* Effect.serviceOption(Outbox)
      return yield* make(options, fromAcontextClient(client), outbox)
    })
  )

/**
 * The SDK options with the CLI asked to echo the user's prompts (`--replay-user-messages`), the
 * caller's other `extraArgs` kept. Without it a `query()` stream carries no user prompt at all,
 * so storing its messages loses every prompt.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withReplayedPrompts = (options: Sdk.Options | undefined): Sdk.Options => ({
  ...options,
  extraArgs: { ...options?.extraArgs, "replay-user-messages": null }
})

/**
 * `query()` could not run: the SDK is not installed, or the query failed (the CLI could not
 * start, exited with an error, …).
 *
 * @since 0.1.0
 * @category errors
 */
export class QueryError extends Schema.TaggedError<QueryError>("@acx/storage/ClaudeAgentStorage/QueryError")(
  "QueryError",
  {
    reason: Schema.Literal("MissingSdk", "Query"),
    description: Schema.String,
    cause: Schema.optionalWith(Schema.Defect, { exact: true })
  }
) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `query failed (${this.reason}): ${this.description}`
  }
}

/**
 * The SDK's `query()` as a Stream, every message stored by the {@link ClaudeAgentStorage} in
 * context as it passes and emitted unchanged; the prompts are stored once each (see
 * {@link withReplayedPrompts}). The SDK is an optional peer of `@acx/storage`, imported here.
 * Interrupting the stream ends the query.
 *
 * @example
 * ```ts
 * const result = yield* ClaudeAgentStorage.query({ prompt: "Fix the failing test", options: { cwd } }).pipe(
 *   Stream.filter((message) => message.type === "result"),
 *   Stream.runLast
 * )
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const query = (params: {
  readonly prompt: string | AsyncIterable<Sdk.SDKUserMessage>
  readonly options?: Sdk.Options | undefined
}): Stream.Stream<Sdk.SDKMessage, QueryError | StorageError, ClaudeAgentStorage> =>
  Stream.unwrap(Effect.gen(function*() {
    const storage = yield* ClaudeAgentStorage
    const sdk = yield* Effect.tryPromise({
      try: () => import("@anthropic-ai/claude-agent-sdk"),
      catch: (cause) =>
        new QueryError({
          reason: "MissingSdk",
          description: "query() runs the Claude Agent SDK: npm install @anthropic-ai/claude-agent-sdk",
          cause
        })
    })
    const messages = Stream.fromAsyncIterable(
      sdk.query({ prompt: params.prompt, options: withReplayedPrompts(params.options) }),
      (cause) =>
        new QueryError({ reason: "Query", description: cause instanceof Error ? cause.message : String(cause), cause })
    )
    return storage.tap(messages)
  }))
