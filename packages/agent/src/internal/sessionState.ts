/**
 * What an `AgentSession` holds while it is open: the inbox its driver fiber reads, the refs its
 * public accessors read, and the turn and process state only the driver touches. The steps that
 * act on it live beside it (`sessionProcess` starts and stops processes, `sessionTurns` settles
 * turns, `sessionDriver` dispatches the inbox); each takes this state as its first argument.
 */
import type { AgentEvent } from "@acx/convert/AgentEvent"
import * as AgentUsage from "@acx/convert/AgentUsage"
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import type * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as path from "node:path"
import type { AgentError } from "../AgentError.js"
import type { AgentSessionOptions, Prompt, Turn } from "../AgentSessionOptions.js"

/** A queued or running turn: its prompt, where its events go, and its end. */
export interface TurnRequest {
  readonly prompt: Prompt
  readonly mailbox: Mailbox.Mailbox<AgentEvent, AgentError>
  readonly done: Deferred.Deferred<Turn, AgentError>
  abandoned: boolean
}

/** The turn the process answers now, with the events it produced so far. */
export interface RunningTurn {
  readonly request: TurnRequest
  readonly events: Array<AgentEvent>
}

/** One Claude Code process; `generation` tells its messages from those of a process before it. */
export interface Process {
  readonly generation: number
  readonly query: Sdk.Query
  readonly input: Queue.Queue<Sdk.SDKUserMessage>
  readonly reader: Fiber.RuntimeFiber<void>
  readonly pid: number | undefined
  /** Its start time when it reported its pid (`ProcessLiveness.startTime`): a reused pid is not it. */
  readonly pidStart: number | undefined
  readonly stderr: () => string
}

/** What the driver fiber is told, one at a time, in order. */
export type DriverInput =
  | { readonly _tag: "Turn"; readonly request: TurnRequest }
  | { readonly _tag: "Abandon"; readonly request: TurnRequest }
  | { readonly _tag: "Message"; readonly generation: number; readonly message: unknown }
  | { readonly _tag: "Ended"; readonly generation: number; readonly error: unknown }
  | { readonly _tag: "Interrupt"; readonly done: Deferred.Deferred<void> }
  | { readonly _tag: "Warm"; readonly done: Deferred.Deferred<void, AgentError> }
  | { readonly _tag: "Close" }

/** How every process of the session is started: resolved once, when the session opens. */
export interface Launch {
  readonly options: AgentSessionOptions
  readonly binary: string
  readonly sessionStore: Sdk.SessionStore | undefined
  readonly cwd: string
  readonly startTimeout: Duration.Duration
}

/** The session's state. The mutable fields belong to the driver fiber alone. */
export interface SessionState {
  readonly launch: Launch
  /** The session's scope: process readers and interrupts are forked into it. */
  readonly scope: Scope.Scope
  readonly inbox: Queue.Queue<DriverInput>
  readonly hub: PubSub.PubSub<AgentEvent>
  readonly sessionId: Ref.Ref<Option.Option<string>>
  readonly usage: Ref.Ref<AgentUsage.ConversationUsage>
  readonly busy: Ref.Ref<boolean>
  readonly pid: Ref.Ref<Option.Option<number>>
  readonly closed: Ref.Ref<boolean>
  /** Completed when the driver has stopped (closed or interrupted). */
  readonly closedDone: Deferred.Deferred<void>
  readonly waiting: Array<TurnRequest>
  current: RunningTurn | undefined
  live: Process | undefined
  generation: number
}

/** A new session's state: no process, no turn; the session id to resume, if any. */
export const makeSessionState = (
  options: AgentSessionOptions,
  resolved: { readonly binary: string; readonly sessionStore: Sdk.SessionStore | undefined }
): Effect.Effect<SessionState, never, Scope.Scope> =>
  Effect.gen(function*() {
    return {
      launch: {
        options,
        ...resolved,
        cwd: path.resolve(options.cwd ?? process.cwd()),
        startTimeout: Duration.decode(options.startTimeout ?? Duration.seconds(60))
      },
      scope: yield* Effect.scope,
      inbox: yield* Queue.unbounded<DriverInput>(),
      hub: yield* PubSub.unbounded<AgentEvent>(),
      sessionId: yield* Ref.make<Option.Option<string>>(Option.fromNullable(options.resume)),
      usage: yield* Ref.make(options.usage ?? AgentUsage.empty),
      busy: yield* Ref.make(false),
      pid: yield* Ref.make<Option.Option<number>>(Option.none()),
      closed: yield* Ref.make(false),
      closedDone: yield* Deferred.make<void>(),
      waiting: [],
      current: undefined,
      live: undefined,
      generation: 0
    }
  })

/** `isBusy` follows the driver's view: a turn runs or waits. */
export const syncBusy = (state: SessionState): Effect.Effect<void> =>
  Effect.suspend(() => Ref.set(state.busy, state.current !== undefined || state.waiting.length > 0))
