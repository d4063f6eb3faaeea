/**
 * The turn bookkeeping of an `AgentSession`'s driver: starting the next queued turn, handing each
 * SDK message's events to the running turn, settling it (its `TurnComplete`, or a process that
 * ended first), and failing every turn when the session closes. Run on the driver fiber only.
 */
import { mapSdkMessage } from "@acx/convert/AgentEvent"
import * as AgentUsage from "@acx/convert/AgentUsage"
import type * as Sdk from "@anthropic-ai/claude-agent-sdk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import { randomUUID } from "node:crypto"
import { AgentError } from "../AgentError.js"
import type { Prompt, Turn, TurnComplete } from "../AgentSessionOptions.js"
import { withStderr } from "./agentProcess.js"
import { describe } from "./describe.js"
import { ensureProcess, stopProcess } from "./sessionProcess.js"
import { type SessionState, syncBusy, type TurnRequest } from "./sessionState.js"

const userMessage = (prompt: Prompt, sessionId: Option.Option<string>): Sdk.SDKUserMessage => ({
  type: "user",
  message: { role: "user", content: typeof prompt === "string" ? prompt : [...prompt] },
  parent_tool_use_id: null,
  session_id: Option.getOrElse(sessionId, () => ""),
  uuid: randomUUID()
})

const failRequest = (request: TurnRequest, error: AgentError): Effect.Effect<void> =>
  request.mailbox.fail(error).pipe(Effect.zipRight(Deferred.fail(request.done, error)), Effect.asVoid)

/** Starts queued turns until one runs (each needs a process; one that cannot start fails it). */
export const startNext = (state: SessionState): Effect.Effect<void> =>
  Effect.gen(function*() {
    while (state.current === undefined && state.waiting.length > 0) {
      const request = state.waiting.shift()!
      if (request.abandoned) {
        yield* failRequest(request, new AgentError({ reason: "Closed", description: "the turn was abandoned" }))
        continue
      }
      const started = yield* Effect.either(ensureProcess(state))
      if (Either.isLeft(started)) {
        yield* failRequest(request, started.left)
        continue
      }
      state.current = { request, events: [] }
      yield* Queue.offer(started.right.input, userMessage(request.prompt, yield* Ref.get(state.sessionId)))
    }
    yield* syncBusy(state)
  })

const finishTurn = (state: SessionState, result: TurnComplete): Effect.Effect<void> =>
  Effect.gen(function*() {
    const finished = state.current!
    state.current = undefined
    const conversation = yield* Ref.get(state.usage)
    const turn: Turn = {
      prompt: finished.request.prompt,
      sessionId: result.sessionId ?? Option.getOrUndefined(yield* Ref.get(state.sessionId)),
      events: finished.events,
      result,
      usage: conversation.lastTurn ?? { tokens: result.tokens, tokensByModel: {}, costUsd: 0 },
      conversation
    }
    const onTurnComplete = state.launch.options.onTurnComplete
    if (onTurnComplete !== undefined) {
      yield* Effect.suspend(() => onTurnComplete(turn)).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("acx agent: onTurnComplete failed", cause))
      )
    }
    yield* finished.request.mailbox.end
    yield* Deferred.succeed(finished.request.done, turn)
  })

/** One SDK message of process `generation`: its events counted, published, and given to the turn. */
export const onMessage = (state: SessionState, generation: number, message: unknown): Effect.Effect<void> =>
  Effect.gen(function*() {
    if (state.live?.generation !== generation) return
    for (const event of mapSdkMessage(message)) {
      yield* Ref.update(state.usage, (usage) => AgentUsage.step(usage, event))
      if (event._tag === "SessionStarted") yield* Ref.set(state.sessionId, Option.some(event.sessionId))
      yield* PubSub.publish(state.hub, event)
      const current = state.current
      if (current === undefined) continue
      current.events.push(event)
      yield* current.request.mailbox.offer(event)
      if (event._tag === "TurnComplete") yield* finishTurn(state, event)
    }
    yield* startNext(state)
  })

/** Process `generation` ended: stopped, and the turn it ran (if any) fails with `TurnFailed`. */
export const onEnded = (state: SessionState, generation: number, error: unknown): Effect.Effect<void> =>
  Effect.gen(function*() {
    const ended = state.live
    if (ended === undefined || ended.generation !== generation) return
    yield* stopProcess(state, ended, false)
    if (state.current !== undefined) {
      const failed = state.current.request
      state.current = undefined
      const why = error === undefined ? "it exited" : describe(error)
      yield* failRequest(
        failed,
        new AgentError({
          reason: "TurnFailed",
          description: withStderr(`the Claude Code process ended before the turn's result: ${why}`, ended.stderr()),
          ...Option.match(yield* Ref.get(state.sessionId), {
            onNone: () => ({}),
            onSome: (sessionId) => ({ sessionId })
          }),
          ...(error === undefined ? {} : { cause: error })
        })
      )
    }
    yield* startNext(state)
  })

/** Closing: every waiting and running turn fails with `Closed`, the process ends, events end. */
export const shutdown = (state: SessionState): Effect.Effect<void> =>
  Effect.gen(function*() {
    const closed = new AgentError({ reason: "Closed", description: "the session was closed" })
    for (const request of state.waiting.splice(0)) yield* failRequest(request, closed)
    if (state.current !== undefined) {
      const running = state.current.request
      // no interrupt is sent: the process is stopped below (stdin closed, a graceful wait, then
      // the SDK's cleanup), which ends the running turn too
      state.current = undefined
      yield* failRequest(running, closed)
    }
    if (state.live !== undefined) yield* stopProcess(state, state.live, true)
    yield* syncBusy(state)
    yield* PubSub.shutdown(state.hub)
  })
