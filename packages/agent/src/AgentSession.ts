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
import { mapSdkMessage } from "@acx/convert/AgentEvent"
import * as AgentUsage from "@acx/convert/AgentUsage"
import * as AcxHome from "@acx/environment/AcxHome"
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import * as path from "node:path"
import { AgentError } from "./AgentError.js"
import type { AgentSessionOptions, Prompt, Turn, TurnComplete, UserContentBlock } from "./AgentSessionOptions.js"
import {
  awaitExit,
  GRACEFUL_EXIT,
  loadSdk,
  resolveBinary,
  resolveStore,
  startFailed,
  STDERR_KEPT,
  storePathIn,
  withStderr
} from "./internal/agentProcess.js"
import { describe } from "./internal/describe.js"
import { queueIterable } from "./internal/input.js"

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

interface TurnRequest {
  readonly prompt: Prompt
  readonly mailbox: Mailbox.Mailbox<AgentEvent, AgentError>
  readonly done: Deferred.Deferred<Turn, AgentError>
  abandoned: boolean
}

interface Process {
  readonly generation: number
  readonly query: Sdk.Query
  readonly input: Queue.Queue<Sdk.SDKUserMessage>
  readonly reader: Fiber.RuntimeFiber<void>
  readonly pid: number | undefined
  readonly stderr: () => string
}

type DriverInput =
  | { readonly _tag: "Turn"; readonly request: TurnRequest }
  | { readonly _tag: "Abandon"; readonly request: TurnRequest }
  | { readonly _tag: "Message"; readonly generation: number; readonly message: unknown }
  | { readonly _tag: "Ended"; readonly generation: number; readonly error: unknown }
  | { readonly _tag: "Interrupt"; readonly done: Deferred.Deferred<void> }
  | { readonly _tag: "Warm"; readonly done: Deferred.Deferred<void, AgentError> }
  | { readonly _tag: "Close" }

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
    const scope = yield* Effect.scope
    const binary = yield* resolveBinary(options)
    const sessionStore = yield* resolveStore(options)
    const cwd = path.resolve(options.cwd ?? process.cwd())
    const startTimeout = Duration.decode(options.startTimeout ?? Duration.seconds(60))

    const inbox = yield* Queue.unbounded<DriverInput>()
    const hub = yield* PubSub.unbounded<AgentEvent>()
    const sessionIdRef = yield* Ref.make<Option.Option<string>>(Option.fromNullable(options.resume))
    const usageRef = yield* Ref.make(options.usage ?? AgentUsage.empty)
    const busyRef = yield* Ref.make(false)
    const pidRef = yield* Ref.make<Option.Option<number>>(Option.none())
    const closedRef = yield* Ref.make(false)
    const closedDone = yield* Deferred.make<void>()

    // state owned by the driver fiber alone
    const waiting: Array<TurnRequest> = []
    let current: { readonly request: TurnRequest; readonly events: Array<AgentEvent> } | undefined
    let live: Process | undefined
    let generation = 0

    const syncBusy = Ref.set(busyRef, current !== undefined || waiting.length > 0)

    const sdkOptions = (resume: string | undefined, onStderr: (data: string) => void): Sdk.Options => {
      const { sdkOptions: extra, ...own } = options
      return {
        ...extra,
        ...(own.model === undefined ? {} : { model: own.model }),
        ...(own.allowedTools === undefined ? {} : { allowedTools: own.allowedTools }),
        ...(own.disallowedTools === undefined ? {} : { disallowedTools: own.disallowedTools }),
        ...(own.permissionMode === undefined ? {} : { permissionMode: own.permissionMode }),
        ...(own.canUseTool === undefined ? {} : { canUseTool: own.canUseTool }),
        ...(own.hooks === undefined ? {} : { hooks: own.hooks }),
        ...(own.maxBudgetUsd === undefined ? {} : { maxBudgetUsd: own.maxBudgetUsd }),
        ...(own.settingSources === undefined ? {} : { settingSources: own.settingSources }),
        ...(own.env === undefined ? {} : { env: own.env }),
        ...(sessionStore === undefined ? {} : { sessionStore }),
        ...(resume === undefined ? {} : { resume }),
        cwd,
        pathToClaudeCodeExecutable: binary,
        includePartialMessages: true,
        // the CLI echoes each prompt: the stream (and an Acontext mirror) sees what was asked
        extraArgs: { ...extra?.extraArgs, "replay-user-messages": null },
        stderr: (data) => {
          onStderr(data)
          extra?.stderr?.(data)
        }
      }
    }

    const mirrorSave = (message: unknown): Effect.Effect<void> =>
      options.mirror === undefined
        ? Effect.void
        : options.mirror.save(message).pipe(
          Effect.catchAllCause((cause) => Effect.logWarning("acx agent: Acontext mirror failed", cause))
        )

    // A loop of its own rather than Stream.fromAsyncIterable: that one awaits the iterator's
    // return() when interrupted, and an async generator's return() waits behind a pending next()
    // — which never settles once the CLI is killed — so closing could hang forever.
    const readLoop = (gen: number, query: Sdk.Query): Effect.Effect<void> =>
      Effect.gen(function*() {
        while (true) {
          const next = yield* Effect.tryPromise({ try: () => query.next(), catch: (error) => error })
          if (next.done === true) return
          yield* mirrorSave(next.value)
          yield* Queue.offer(inbox, { _tag: "Message", generation: gen, message: next.value })
        }
      }).pipe(
        Effect.exit,
        Effect.flatMap((exit) =>
          Queue.offer(inbox, {
            _tag: "Ended",
            generation: gen,
            error: Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
          })
        ),
        Effect.asVoid
      )

    const start = (gen: number, resume: string | undefined): Effect.Effect<Process, AgentError> =>
      Effect.gen(function*() {
        const failed = startFailed(resume)
        const sdk = yield* loadSdk
        const input = yield* Queue.unbounded<Sdk.SDKUserMessage>()
        let stderr = ""
        const onStderr = (data: string) => {
          stderr = (stderr + data).slice(-STDERR_KEPT)
        }
        const query = yield* Effect.try({
          try: () => sdk.query({ prompt: queueIterable(input), options: sdkOptions(resume, onStderr) }),
          catch: (cause) => failed(`cannot start Claude Code (${binary}): ${describe(cause)}`, cause)
        })
        // interruptible whatever region the session was made in (a pool makes it in an acquire)
        const reader = yield* Effect.forkIn(Effect.interruptible(readLoop(gen, query)), scope)
        const init = yield* Effect.tryPromise({
          try: () => query.initializationResult(),
          catch: (cause) =>
            failed(withStderr(`Claude Code (${binary}) did not start: ${describe(cause)}`, stderr), cause)
        }).pipe(
          Effect.timeoutFail({
            duration: startTimeout,
            onTimeout: () =>
              failed(withStderr(
                `Claude Code (${binary}) did not answer within ${Duration.format(startTimeout)}`,
                stderr
              ))
          }),
          Effect.tapError(() => Effect.sync(() => query.close()).pipe(Effect.zipRight(Queue.shutdown(input))))
        )
        // the CLI reports its pid in the initialize answer (not in the SDK's type)
        const reported = (init as { readonly pid?: unknown }).pid
        const pid = typeof reported === "number" ? reported : undefined
        return { generation: gen, query, input, reader, pid, stderr: () => stderr }
      }).pipe(Effect.withSpan("AgentSession.start", { attributes: { cwd, resume: resume ?? "" } }))

    const ensureProcess: Effect.Effect<Process, AgentError> = Effect.suspend(() => {
      if (live !== undefined) return Effect.succeed(live)
      generation += 1
      return Ref.get(sessionIdRef).pipe(
        Effect.flatMap((sessionId) => start(generation, Option.getOrUndefined(sessionId))),
        Effect.tap((started) => {
          live = started
          return Ref.set(pidRef, Option.fromNullable(started.pid))
        })
      )
    })

    /** Ends a process: stdin closed (the CLI flushes and exits), then the SDK's own cleanup. */
    const stop = (ended: Process, graceful: boolean): Effect.Effect<void> =>
      Effect.gen(function*() {
        yield* Queue.shutdown(ended.input)
        if (graceful) yield* Fiber.await(ended.reader).pipe(Effect.timeout(GRACEFUL_EXIT), Effect.ignore)
        yield* Effect.sync(() => ended.query.close())
        yield* Fiber.interrupt(ended.reader)
        // gone from the system before this returns: a pool counts on it to never exceed its slots
        if (ended.pid !== undefined) yield* awaitExit(ended.pid)
        if (live === ended) {
          live = undefined
          yield* Ref.set(pidRef, Option.none())
        }
      })

    const userMessage = (prompt: Prompt, sessionId: Option.Option<string>): Sdk.SDKUserMessage => ({
      type: "user",
      message: { role: "user", content: typeof prompt === "string" ? prompt : [...prompt] },
      parent_tool_use_id: null,
      session_id: Option.getOrElse(sessionId, () => ""),
      uuid: randomUUID()
    })

    const failRequest = (request: TurnRequest, error: AgentError) =>
      request.mailbox.fail(error).pipe(Effect.zipRight(Deferred.fail(request.done, error)))

    const startNext: Effect.Effect<void> = Effect.gen(function*() {
      while (current === undefined && waiting.length > 0) {
        const request = waiting.shift()!
        if (request.abandoned) {
          yield* failRequest(request, new AgentError({ reason: "Closed", description: "the turn was abandoned" }))
          continue
        }
        const started = yield* Effect.either(ensureProcess)
        if (Either.isLeft(started)) {
          yield* failRequest(request, started.left)
          continue
        }
        current = { request, events: [] }
        yield* Queue.offer(started.right.input, userMessage(request.prompt, yield* Ref.get(sessionIdRef)))
      }
      yield* syncBusy
    })

    const finishTurn = (result: TurnComplete): Effect.Effect<void> =>
      Effect.gen(function*() {
        const finished = current!
        current = undefined
        const conversation = yield* Ref.get(usageRef)
        const turn: Turn = {
          prompt: finished.request.prompt,
          sessionId: result.sessionId ?? Option.getOrUndefined(yield* Ref.get(sessionIdRef)),
          events: finished.events,
          result,
          usage: conversation.lastTurn ?? { tokens: result.tokens, tokensByModel: {}, costUsd: 0 },
          conversation
        }
        if (options.onTurnComplete !== undefined) {
          yield* Effect.suspend(() => options.onTurnComplete!(turn)).pipe(
            Effect.catchAllCause((cause) => Effect.logWarning("acx agent: onTurnComplete failed", cause))
          )
        }
        yield* finished.request.mailbox.end
        yield* Deferred.succeed(finished.request.done, turn)
      })

    const onMessage = (gen: number, message: unknown): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (live?.generation !== gen) return
        for (const event of mapSdkMessage(message)) {
          yield* Ref.update(usageRef, (usage) => AgentUsage.step(usage, event))
          if (event._tag === "SessionStarted") yield* Ref.set(sessionIdRef, Option.some(event.sessionId))
          yield* PubSub.publish(hub, event)
          if (current === undefined) continue
          current.events.push(event)
          yield* current.request.mailbox.offer(event)
          if (event._tag === "TurnComplete") yield* finishTurn(event)
        }
        yield* startNext
      })

    const onEnded = (gen: number, error: unknown): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (live === undefined || live.generation !== gen) return
        const ended = live
        yield* stop(ended, false)
        if (current !== undefined) {
          const failed = current.request
          current = undefined
          const why = error === undefined ? "it exited" : describe(error)
          yield* failRequest(
            failed,
            new AgentError({
              reason: "TurnFailed",
              description: withStderr(`the Claude Code process ended before the turn's result: ${why}`, ended.stderr()),
              ...Option.match(yield* Ref.get(sessionIdRef), {
                onNone: () => ({}),
                onSome: (sessionId) => ({ sessionId })
              }),
              ...(error === undefined ? {} : { cause: error })
            })
          )
        }
        yield* startNext
      })

    const interruptRunning: Effect.Effect<void> = Effect.suspend(() => {
      const running = live
      if (current === undefined || running === undefined) return Effect.void
      // not awaited here: the turn's error result arrives through the reader
      return Effect.tryPromise(() => running.query.interrupt()).pipe(
        Effect.timeout(GRACEFUL_EXIT),
        Effect.ignore,
        Effect.interruptible,
        Effect.forkIn(scope),
        Effect.asVoid
      )
    })

    const shutdown: Effect.Effect<void> = Effect.gen(function*() {
      const closed = new AgentError({ reason: "Closed", description: "the session was closed" })
      for (const request of waiting.splice(0)) yield* failRequest(request, closed)
      if (current !== undefined) {
        const running = current.request
        current = undefined
        yield* interruptRunning
        yield* failRequest(running, closed)
      }
      if (live !== undefined) yield* stop(live, true)
      yield* syncBusy
      yield* PubSub.shutdown(hub)
    })

    const handle = (input: DriverInput): Effect.Effect<boolean> => {
      switch (input._tag) {
        case "Turn":
          waiting.push(input.request)
          return Effect.as(startNext, true)
        case "Abandon":
          input.request.abandoned = true
          return Effect.as(current?.request === input.request ? interruptRunning : Effect.void, true)
        case "Message":
          return Effect.as(onMessage(input.generation, input.message), true)
        case "Ended":
          return Effect.as(onEnded(input.generation, input.error), true)
        case "Interrupt":
          return interruptRunning.pipe(Effect.zipRight(Deferred.succeed(input.done, undefined)), Effect.as(true))
        case "Warm":
          return Effect.exit(ensureProcess).pipe(
            Effect.flatMap((exit) => Deferred.done(input.done, Exit.asVoid(exit))),
            Effect.as(true)
          )
        case "Close":
          return Effect.as(shutdown, false)
      }
    }

    const driver = Effect.gen(function*() {
      let running = true
      while (running) running = yield* Queue.take(inbox).pipe(Effect.flatMap(handle))
    }).pipe(Effect.ensuring(Deferred.succeed(closedDone, undefined)))
    yield* Effect.forkIn(Effect.interruptible(driver), scope)

    const close: Effect.Effect<void> = Ref.getAndSet(closedRef, true).pipe(
      Effect.flatMap((already) => (already ? Effect.void : Queue.offer(inbox, { _tag: "Close" }))),
      Effect.zipRight(Deferred.await(closedDone)),
      Effect.withSpan("AgentSession.close")
    )
    yield* Effect.addFinalizer(() => close)

    const enqueue = (prompt: Prompt): Effect.Effect<TurnRequest, AgentError> =>
      Effect.gen(function*() {
        const valid = yield* validatePrompt(prompt)
        if (yield* Ref.get(closedRef)) {
          return yield* new AgentError({ reason: "Closed", description: "the session is closed" })
        }
        const request: TurnRequest = {
          prompt: valid,
          mailbox: yield* Mailbox.make<AgentEvent, AgentError>(),
          done: yield* Deferred.make<Turn, AgentError>(),
          abandoned: false
        }
        yield* Ref.set(busyRef, true)
        yield* Queue.offer(inbox, { _tag: "Turn", request })
        return request
      })

    const abandon = (request: TurnRequest) =>
      Deferred.isDone(request.done).pipe(
        Effect.flatMap((done) => (done ? Effect.void : Queue.offer(inbox, { _tag: "Abandon", request }))),
        Effect.asVoid
      )

    const submit = (prompt: Prompt) =>
      Effect.map(enqueue(prompt), (request) =>
        Mailbox.toStream(request.mailbox).pipe(
          Stream.ensuring(abandon(request)),
          Stream.withSpan("AgentSession.turn")
        ))

    const session: AgentSession = {
      send: (prompt) => Stream.unwrap(submit(prompt)),
      submit,
      ask: (prompt) =>
        enqueue(prompt).pipe(
          Effect.flatMap((request) => Deferred.await(request.done).pipe(Effect.onInterrupt(() => abandon(request)))),
          Effect.withSpan("AgentSession.ask")
        ),
      interrupt: Effect.gen(function*() {
        const done = yield* Deferred.make<void>()
        yield* Queue.offer(inbox, { _tag: "Interrupt", done })
        yield* Effect.raceFirst(Deferred.await(done), Deferred.await(closedDone))
      }),
      close,
      warm: Effect.gen(function*() {
        if (yield* Ref.get(closedRef)) {
          return yield* new AgentError({ reason: "Closed", description: "the session is closed" })
        }
        const done = yield* Deferred.make<void, AgentError>()
        yield* Queue.offer(inbox, { _tag: "Warm", done })
        yield* Effect.raceFirst(
          Deferred.await(done),
          Deferred.await(closedDone).pipe(
            Effect.zipRight(Effect.fail(new AgentError({ reason: "Closed", description: "the session was closed" })))
          )
        )
      }),
      isBusy: Ref.get(busyRef),
      processId: Ref.get(pidRef),
      isClosed: Ref.get(closedRef),
      sessionId: Ref.get(sessionIdRef),
      usage: Ref.get(usageRef),
      events: Stream.fromPubSub(hub)
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
