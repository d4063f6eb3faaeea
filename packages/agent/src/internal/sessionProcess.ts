/**
 * The process steps of an `AgentSession`: the SDK options a process starts with, starting one
 * (and reading its messages into the driver's inbox), the one process a turn needs, stopping it,
 * and interrupting the turn it runs.
 */
import * as ProcessLiveness from "@acx/environment/ProcessLiveness"
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type { AgentError } from "../AgentError.js"
import { awaitExit, GRACEFUL_EXIT, loadSdk, startFailed, STDERR_KEPT, withStderr } from "./agentProcess.js"
import { describe } from "./describe.js"
import { queueIterable } from "./input.js"
import type { Launch, Process, SessionState } from "./sessionState.js"

/** The SDK options of one process: the session's own fields win over `sdkOptions`. */
export const sdkOptions = (
  launch: Launch,
  resume: string | undefined,
  onStderr: (data: string) => void
): Sdk.Options => {
  const { sdkOptions: extra, ...own } = launch.options
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
    ...(launch.sessionStore === undefined ? {} : { sessionStore: launch.sessionStore }),
    ...(resume === undefined ? {} : { resume }),
    cwd: launch.cwd,
    pathToClaudeCodeExecutable: launch.binary,
    includePartialMessages: true,
    // the CLI echoes each prompt: the stream (and an Acontext mirror) sees what was asked
    extraArgs: { ...extra?.extraArgs, "replay-user-messages": null },
    stderr: (data) => {
      onStderr(data)
      extra?.stderr?.(data)
    }
  }
}

const mirrorSave = (launch: Launch, message: unknown): Effect.Effect<void> =>
  launch.options.mirror === undefined
    ? Effect.void
    : launch.options.mirror.save(message).pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("acx agent: Acontext mirror failed", cause))
    )

// A loop of its own rather than Stream.fromAsyncIterable: that one awaits the iterator's
// return() when interrupted, and an async generator's return() waits behind a pending next()
// — which never settles once the CLI is killed — so closing could hang forever.
const readLoop = (state: SessionState, generation: number, query: Sdk.Query): Effect.Effect<void> =>
  Effect.gen(function*() {
    while (true) {
      const next = yield* Effect.tryPromise({ try: () => query.next(), catch: (error) => error })
      if (next.done === true) return
      yield* mirrorSave(state.launch, next.value)
      yield* Queue.offer(state.inbox, { _tag: "Message", generation, message: next.value })
    }
  }).pipe(
    Effect.exit,
    Effect.flatMap((exit) =>
      Queue.offer(state.inbox, {
        _tag: "Ended",
        generation,
        error: Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      })
    ),
    Effect.asVoid
  )

// Waits for the CLI's answer to the SDK's initialize request; a process that does not answer in
// time is closed. The CLI reports its pid in that answer (not in the SDK's type).
const awaitInitialized = (
  launch: Launch,
  resume: string | undefined,
  query: Sdk.Query,
  input: Queue.Queue<Sdk.SDKUserMessage>,
  stderr: () => string
): Effect.Effect<number | undefined, AgentError> => {
  const failed = startFailed(resume)
  return Effect.tryPromise({
    try: () => query.initializationResult(),
    catch: (cause) =>
      failed(withStderr(`Claude Code (${launch.binary}) did not start: ${describe(cause)}`, stderr()), cause)
  }).pipe(
    Effect.timeoutFail({
      duration: launch.startTimeout,
      onTimeout: () =>
        failed(withStderr(
          `Claude Code (${launch.binary}) did not answer within ${Duration.format(launch.startTimeout)}`,
          stderr()
        ))
    }),
    Effect.tapError(() => Effect.sync(() => query.close()).pipe(Effect.zipRight(Queue.shutdown(input)))),
    Effect.map((init) => {
      const reported = (init as { readonly pid?: unknown }).pid
      return typeof reported === "number" ? reported : undefined
    })
  )
}

/** Starts process `generation` (resuming `resume`), its messages read into the inbox. */
export const startProcess = (
  state: SessionState,
  generation: number,
  resume: string | undefined
): Effect.Effect<Process, AgentError> =>
  Effect.gen(function*() {
    const { binary } = state.launch
    const sdk = yield* loadSdk
    const input = yield* Queue.unbounded<Sdk.SDKUserMessage>()
    let stderr = ""
    const onStderr = (data: string) => {
      stderr = (stderr + data).slice(-STDERR_KEPT)
    }
    const query = yield* Effect.try({
      try: () => sdk.query({ prompt: queueIterable(input), options: sdkOptions(state.launch, resume, onStderr) }),
      catch: (cause) => startFailed(resume)(`cannot start Claude Code (${binary}): ${describe(cause)}`, cause)
    })
    // interruptible whatever region the session was made in (a pool makes it in an acquire)
    const reader = yield* Effect.forkIn(Effect.interruptible(readLoop(state, generation, query)), state.scope)
    const pid = yield* awaitInitialized(state.launch, resume, query, input, () => stderr)
    const pidStart = pid === undefined ? undefined : ProcessLiveness.startTime(pid)
    return { generation, query, input, reader, pid, pidStart, stderr: () => stderr }
  }).pipe(Effect.withSpan("AgentSession.start", { attributes: { cwd: state.launch.cwd, resume: resume ?? "" } }))

/** The live process, or a new one resuming the session (a new generation). */
export const ensureProcess = (state: SessionState): Effect.Effect<Process, AgentError> =>
  Effect.suspend(() => {
    if (state.live !== undefined) return Effect.succeed(state.live)
    state.generation += 1
    const generation = state.generation
    return Ref.get(state.sessionId).pipe(
      Effect.flatMap((sessionId) => startProcess(state, generation, Option.getOrUndefined(sessionId))),
      Effect.tap((started) => {
        state.live = started
        return Ref.set(state.pid, Option.fromNullable(started.pid))
      })
    )
  })

/** Ends a process: stdin closed (the CLI flushes and exits), then the SDK's own cleanup. */
export const stopProcess = (state: SessionState, ended: Process, graceful: boolean): Effect.Effect<void> =>
  Effect.gen(function*() {
    yield* Queue.shutdown(ended.input)
    if (graceful) yield* Fiber.await(ended.reader).pipe(Effect.timeout(GRACEFUL_EXIT), Effect.ignore)
    yield* Effect.sync(() => ended.query.close())
    yield* Fiber.interrupt(ended.reader)
    // gone from the system before this returns: a pool counts on it to never exceed its slots
    if (ended.pid !== undefined) yield* awaitExit(ended.pid, ended.pidStart)
    if (state.live === ended) {
      state.live = undefined
      yield* Ref.set(state.pid, Option.none())
    }
  })

/** Asks the CLI to interrupt the running turn, if any; its error result arrives as a message. */
export const interruptRunning = (state: SessionState): Effect.Effect<void> =>
  Effect.suspend(() => {
    const running = state.live
    if (state.current === undefined || running === undefined) return Effect.void
    // not awaited here: the turn's error result arrives through the reader
    return Effect.tryPromise(() => running.query.interrupt()).pipe(
      Effect.timeout(GRACEFUL_EXIT),
      Effect.ignore,
      Effect.interruptible,
      Effect.forkIn(state.scope),
      Effect.asVoid
    )
  })
