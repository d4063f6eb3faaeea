/**
 * A warm, resumable conversation with Claude Code: ONE Claude Code process, driven by the SDK's
 * `query()` in streaming-input mode, answers every turn while the session is open — no cold
 * start and no transcript reload per prompt. Every transcript line is mirrored into a
 * `SessionStore` (by default the embedded SQLite file `$ACX_HOME/agent.db`), so a process that
 * died, or a session closed and opened again (`resume`), continues from the store with every
 * earlier turn intact.
 *
 * - `send(prompt)` streams the turn's {@link AgentEvent}s and ends with its `TurnComplete`. Sends
 *   while a turn runs wait their turn, in order (the CLI would otherwise merge a prompt sent
 *   mid-turn into the running one).
 * - A process that ends before the turn's result fails the turn with `TurnFailed`; the next send
 *   starts a new process that resumes the session from the store. A process that cannot start is
 *   `StartFailed` (fall back on {@link runOnce}, or elsewhere).
 * - `usage` is the conversation's tokens by model and dollars, per turn and in total; dollars are
 *   read from the SDK's cumulative `total_cost_usd`, never summed (see `AgentUsage`).
 * - Options pass through to the SDK (`model`, `cwd`, tools, permissions, hooks, budget, …); the
 *   binary is found the one way acx finds Claude Code (`ACX_CLAUDE_PATH` first, see
 *   `ClaudeBinary`). `mirror` saves the stream into Acontext (`ClaudeAgentStorage`); `onTurnComplete` hands each finished
 *   turn to the app (its own database).
 *
 * Interrupting the consumer of a turn's stream (or `ask`) before the turn starts drops it; while
 * it runs, interrupts it in the CLI (its result still counts in `usage`).
 *
 * @example
 * ```ts
 * import { AgentSession } from "@acx/agent"
 * import { Effect, Stream } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const session = yield* AgentSession.make({ cwd: "/srv/app", model: "claude-sonnet-4-5" })
 *   yield* session.send("Why does the build fail?").pipe(
 *     Stream.runForEach((event) => event._tag === "TextDelta" ? Effect.sync(() => process.stdout.write(event.text)) : Effect.void)
 *   )
 *   const turn = yield* session.ask("Fix it.") // the whole turn: events, result, usage
 *   console.log(turn.usage.costUsd, yield* session.sessionId)
 * })
 * Effect.runPromise(Effect.scoped(program))
 * ```
 *
 * @since 0.1.0
 */
import type { AgentEvent } from "@acx/convert/AgentEvent"
import type * as AgentUsage from "@acx/convert/AgentUsage"
import * as AcxHome from "@acx/environment/AcxHome"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import type * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { AgentError } from "./AgentError.js"
import type { AgentSessionOptions, Prompt, Turn, UserContentBlock } from "./AgentSessionOptions.js"
import { resolveBinary, resolveStore, storePathIn } from "./internal/agentProcess.js"
import { forkDriver } from "./internal/sessionDriver.js"
import { makeSessionState, type SessionState, type TurnRequest } from "./internal/sessionState.js"

/**
 * Prompts, turns and the session's options (defined in `AgentSessionOptions`).
 *
 * @since 0.1.0
 * @category models
 */
export type {
  AgentSessionOptions,
  MessageMirror,
  PassThroughOptions,
  Prompt,
  Turn,
  TurnComplete,
  UserContentBlock
} from "./AgentSessionOptions.js"

/**
 * A conversation.
 *
 * @since 0.1.0
 * @category models
 */
export interface AgentSession {
  /** The turn's events, ending with its `TurnComplete`; queued behind running turns when run. */
  readonly send: (prompt: Prompt) => Stream.Stream<AgentEvent, AgentError>
  /** Queues the turn now (call order is turn order) and returns its events. */
  readonly submit: (prompt: Prompt) => Effect.Effect<Stream.Stream<AgentEvent, AgentError>, AgentError>
  /** Runs a turn to its end and returns it whole. */
  readonly ask: (prompt: Prompt) => Effect.Effect<Turn, AgentError>
  /** Interrupts the running turn (it ends with an error result); queued turns still run. */
  readonly interrupt: Effect.Effect<void>
  /** Ends the process and the session; queued and running turns fail with `Closed`. Idempotent. */
  readonly close: Effect.Effect<void>
  /** Starts the process now, if none runs (a send would start it anyway). */
  readonly warm: Effect.Effect<void, AgentError>
  /** A turn runs or waits. */
  readonly isBusy: Effect.Effect<boolean>
  /** The process's pid while one runs. */
  readonly processId: Effect.Effect<Option.Option<number>>
  readonly isClosed: Effect.Effect<boolean>
  /** From the latest `system/init` message (or the session resumed). */
  readonly sessionId: Effect.Effect<Option.Option<string>>
  readonly usage: Effect.Effect<AgentUsage.ConversationUsage>
  /** Every event from now on, those outside any turn too (a background task's late output). */
  readonly events: Stream.Stream<AgentEvent>
}

/**
 * @since 0.1.0
 * @category tags
 */
export const AgentSession: Context.Tag<AgentSession, AgentSession> = Context.GenericTag<AgentSession>(
  "@acx/agent/AgentSession"
)

/**
 * acx's home directory: `ACX_HOME`, else `~/.acx`.
 *
 * @since 0.1.0
 * @category constants
 */
export const acxHome: (env?: { readonly [name: string]: string | undefined }) => string = AcxHome.acxHome

/**
 * The default store's file: `$ACX_HOME/agent.db`.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultStorePath = (home: string = acxHome()): string => storePathIn(home)

const invalidPrompt = (description: string) => new AgentError({ reason: "InvalidPrompt", description })

/**
 * A prompt the CLI can take: non-blank text, or a non-empty list of content blocks.
 *
 * @since 0.1.0
 * @category validation
 */
export const validatePrompt = (prompt: unknown): Either.Either<Prompt, AgentError> => {
  if (typeof prompt === "string") {
    return prompt.trim() === "" ? Either.left(invalidPrompt("the prompt is empty")) : Either.right(prompt)
  }
  if (!Array.isArray(prompt) || prompt.length === 0) {
    return Either.left(invalidPrompt("a prompt is text or a non-empty list of user content blocks"))
  }
  const bad = prompt.findIndex((block: unknown) =>
    typeof block !== "object" || block === null || typeof (block as { type?: unknown }).type !== "string"
  )
  return bad === -1
    ? Either.right(prompt as ReadonlyArray<UserContentBlock>)
    : Either.left(invalidPrompt(`content block ${bad} has no type`))
}

const closedError = (description: string) => new AgentError({ reason: "Closed", description })

// Queues a turn for the driver; `isBusy` turns true at once, before the driver takes it.
const enqueue = (state: SessionState, prompt: Prompt): Effect.Effect<TurnRequest, AgentError> =>
  Effect.gen(function*() {
    const valid = yield* validatePrompt(prompt)
    if (yield* Ref.get(state.closed)) return yield* closedError("the session is closed")
    const request: TurnRequest = {
      prompt: valid,
      mailbox: yield* Mailbox.make<AgentEvent, AgentError>(),
      done: yield* Deferred.make<Turn, AgentError>(),
      abandoned: false
    }
    yield* Ref.set(state.busy, true)
    yield* Queue.offer(state.inbox, { _tag: "Turn", request })
    return request
  })

// A turn whose consumer went away: dropped if it waits, interrupted if it runs.
const abandon = (state: SessionState, request: TurnRequest): Effect.Effect<void> =>
  Deferred.isDone(request.done).pipe(
    Effect.flatMap((done) => (done ? Effect.void : Queue.offer(state.inbox, { _tag: "Abandon", request }))),
    Effect.asVoid
  )

const submitTo = (state: SessionState) => (prompt: Prompt) =>
  Effect.map(enqueue(state, prompt), (request) =>
    Mailbox.toStream(request.mailbox).pipe(
      Stream.ensuring(abandon(state, request)),
      Stream.withSpan("AgentSession.turn")
    ))

const askOf = (state: SessionState) => (prompt: Prompt): Effect.Effect<Turn, AgentError> =>
  enqueue(state, prompt).pipe(
    Effect.flatMap((request) => Deferred.await(request.done).pipe(Effect.onInterrupt(() => abandon(state, request)))),
    Effect.withSpan("AgentSession.ask")
  )

const closeOf = (state: SessionState): Effect.Effect<void> =>
  Ref.getAndSet(state.closed, true).pipe(
    Effect.flatMap((already) => (already ? Effect.void : Queue.offer(state.inbox, { _tag: "Close" }))),
    Effect.zipRight(Deferred.await(state.closedDone)),
    Effect.withSpan("AgentSession.close")
  )

const interruptOf = (state: SessionState): Effect.Effect<void> =>
  Effect.gen(function*() {
    const done = yield* Deferred.make<void>()
    yield* Queue.offer(state.inbox, { _tag: "Interrupt", done })
    yield* Effect.raceFirst(Deferred.await(done), Deferred.await(state.closedDone))
  })

const warmOf = (state: SessionState): Effect.Effect<void, AgentError> =>
  Effect.gen(function*() {
    if (yield* Ref.get(state.closed)) return yield* closedError("the session is closed")
    const done = yield* Deferred.make<void, AgentError>()
    yield* Queue.offer(state.inbox, { _tag: "Warm", done })
    yield* Effect.raceFirst(
      Deferred.await(done),
      Deferred.await(state.closedDone).pipe(Effect.zipRight(Effect.fail(closedError("the session was closed"))))
    )
  })

/**
 * Opens a conversation. Nothing starts until the first send (or `warm`); the scope closes it.
 * Fails with `StartFailed` when no binary is found or the default store cannot open.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: AgentSessionOptions = {}
): Effect.Effect<AgentSession, AgentError, Scope.Scope> =>
  Effect.gen(function*() {
    const binary = yield* resolveBinary(options)
    const sessionStore = yield* resolveStore(options)
    const state = yield* makeSessionState(options, { binary, sessionStore })
    yield* forkDriver(state)
    const close = closeOf(state)
    yield* Effect.addFinalizer(() => close)
    const submit = submitTo(state)
    const session: AgentSession = {
      send: (prompt) => Stream.unwrap(submit(prompt)),
      submit,
      ask: askOf(state),
      interrupt: interruptOf(state),
      close,
      warm: warmOf(state),
      isBusy: Ref.get(state.busy),
      processId: Ref.get(state.pid),
      isClosed: Ref.get(state.closed),
      sessionId: Ref.get(state.sessionId),
      usage: Ref.get(state.usage),
      events: Stream.fromPubSub(state.hub)
    }
    return session
  })

/**
 * The session as a layer (closed with the layer's scope).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: AgentSessionOptions = {}): Layer.Layer<AgentSession, AgentError> =>
  Layer.scoped(AgentSession, make(options))

/**
 * One turn in a process of its own, closed after it: for callers without a conversation, or a
 * fallback when a warm session cannot start. Continues `options.resume` when given.
 *
 * @since 0.1.0
 * @category constructors
 */
export const runOnce = (prompt: Prompt, options: AgentSessionOptions = {}): Effect.Effect<Turn, AgentError> =>
  Effect.scoped(Effect.flatMap(make(options), (session) => session.ask(prompt))).pipe(
    Effect.withSpan("AgentSession.runOnce")
  )
