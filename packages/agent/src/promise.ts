/**
 * `@acx/agent` for plain TypeScript: warm, resumable conversations with Promises and async
 * iterables. Errors are the typed `AgentError` itself (`error.reason`: `StartFailed`,
 * `TurnFailed`, `Closed`, …).
 *
 * @example
 * ```ts
 * import { createAgentSession } from "@acx/agent/promise"
 *
 * await using session = await createAgentSession({ cwd: "/srv/app", model: "claude-sonnet-4-5" })
 * for await (const event of session.send("Why does the build fail?")) {
 *   if (event._tag === "TextDelta") process.stdout.write(event.text)
 * }
 * const turn = await session.ask("Fix it.")
 * console.log(turn.usage.costUsd, session.sessionId, session.usage.costUsd)
 * ```
 *
 * @since 0.1.0
 */
import type { AgentEvent } from "@acx/convert/AgentEvent"
import type * as AgentUsage from "@acx/convert/AgentUsage"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { AgentError } from "./AgentError.js"
import * as AgentSession from "./AgentSession.js"

export { AgentError } from "./AgentError.js"
export type { Prompt, Turn, TurnComplete, UserContentBlock } from "./AgentSession.js"

/**
 * Options of {@link createAgentSession}: those of `AgentSession.make`, with Promise callbacks.
 *
 * @since 0.1.0
 * @category models
 */
export interface AgentSessionOptions extends Omit<AgentSession.AgentSessionOptions, "onTurnComplete" | "mirror"> {
  /** Runs after each turn, before its stream ends; a rejection is logged. */
  readonly onTurnComplete?: ((turn: AgentSession.Turn) => void | Promise<void>) | undefined
  /** Saves every SDK message as it passes (e.g. `@acx/storage/promise`'s `AcontextStorage`). */
  readonly mirror?: { readonly saveMessage: (message: unknown) => Promise<unknown> } | undefined
}

/**
 * A conversation (see `AgentSession`).
 *
 * @since 0.1.0
 * @category models
 */
export interface AgentSessionHandle extends AsyncDisposable {
  /** Queues the turn now (call order is turn order) and yields its events; leaving the loop early interrupts the turn. */
  send(prompt: AgentSession.Prompt): AsyncIterable<AgentEvent>
  /** Runs a turn to its end. */
  ask(prompt: AgentSession.Prompt): Promise<AgentSession.Turn>
  /** Interrupts the running turn. */
  interrupt(): Promise<void>
  /** Starts the process now. */
  warm(): Promise<void>
  /** Ends the process and the session. */
  close(): Promise<void>
  readonly isBusy: boolean
  readonly sessionId: string | undefined
  readonly processId: number | undefined
  readonly usage: AgentUsage.ConversationUsage
}

const settle = <A>(exit: Exit.Exit<A, unknown>): Promise<A> =>
  Exit.isSuccess(exit) ? Promise.resolve(exit.value) : Promise.reject(Cause.squash(exit.cause))

const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> => Effect.runPromiseExit(effect).then(settle)

const toEffectOptions = (options: AgentSessionOptions): AgentSession.AgentSessionOptions => {
  const { mirror, onTurnComplete, ...rest } = options
  return {
    ...rest,
    ...(onTurnComplete === undefined ? {} : {
      onTurnComplete: (turn: AgentSession.Turn) => Effect.tryPromise(async () => onTurnComplete(turn))
    }),
    ...(mirror === undefined ? {} : {
      mirror: { save: (message: unknown) => Effect.tryPromise(() => mirror.saveMessage(message)) }
    })
  }
}

/**
 * Opens a conversation; rejects with `AgentError` (`StartFailed`) when no Claude Code binary is
 * found or the default store cannot open. The process starts at the first send.
 *
 * @since 0.1.0
 * @category constructors
 */
export const createAgentSession = async (options: AgentSessionOptions = {}): Promise<AgentSessionHandle> => {
  const scope = Effect.runSync(Scope.make())
  const session = await Effect.runPromiseExit(Scope.extend(AgentSession.make(toEffectOptions(options)), scope))
    .then(async (exit) => {
      if (Exit.isFailure(exit)) await Effect.runPromise(Scope.close(scope, exit))
      return settle(exit)
    })
  const close = () => run(session.close.pipe(Effect.zipRight(Scope.close(scope, Exit.void))))
  return {
    send: (prompt) => {
      // queued synchronously: the order of send calls is the order of turns
      const submitted = Effect.runSync(Effect.either(session.submit(prompt)))
      const stream = submitted._tag === "Right" ? submitted.right : Stream.fail(submitted.left)
      return Stream.toAsyncIterable(stream)
    },
    ask: (prompt) => run(session.ask(prompt)),
    interrupt: () => run(session.interrupt),
    warm: () => run(session.warm),
    close,
    get isBusy() {
      return Effect.runSync(session.isBusy)
    },
    get sessionId() {
      return Option.getOrUndefined(Effect.runSync(session.sessionId))
    },
    get processId() {
      return Option.getOrUndefined(Effect.runSync(session.processId))
    },
    get usage() {
      return Effect.runSync(session.usage)
    },
    [Symbol.asyncDispose]: close
  }
}

/**
 * One turn in a process of its own (see `AgentSession.runOnce`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const runOnce = (prompt: AgentSession.Prompt, options: AgentSessionOptions = {}): Promise<AgentSession.Turn> =>
  run(AgentSession.runOnce(prompt, toEffectOptions(options)))

/**
 * Whether a value is an {@link AgentError}.
 *
 * @since 0.1.0
 * @category guards
 */
export const isAgentError = (error: unknown): error is AgentError => error instanceof AgentError
