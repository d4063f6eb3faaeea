/**
 * The driver of an `AgentSession`: one fiber that takes the inbox's inputs (turns asked for,
 * SDK messages, processes that ended, interrupts, warm-ups, close) one at a time, so the turn and
 * process state has a single writer.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import { ensureProcess, interruptRunning } from "./sessionProcess.js"
import type { DriverInput, SessionState } from "./sessionState.js"
import { onEnded, onMessage, shutdown, startNext } from "./sessionTurns.js"

/** Handles one input; `false` once the session is closed (the driver stops). */
const handle = (state: SessionState, input: DriverInput): Effect.Effect<boolean> => {
  switch (input._tag) {
    case "Turn":
      state.waiting.push(input.request)
      return Effect.as(startNext(state), true)
    case "Abandon":
      input.request.abandoned = true
      return Effect.as(state.current?.request === input.request ? interruptRunning(state) : Effect.void, true)
    case "Message":
      return Effect.as(onMessage(state, input.generation, input.message), true)
    case "Ended":
      return Effect.as(onEnded(state, input.generation, input.error), true)
    case "Interrupt":
      return interruptRunning(state).pipe(Effect.zipRight(Deferred.succeed(input.done, undefined)), Effect.as(true))
    case "Warm":
      return Effect.exit(ensureProcess(state)).pipe(
        Effect.flatMap((exit) => Deferred.done(input.done, Exit.asVoid(exit))),
        Effect.as(true)
      )
    case "Close":
      return Effect.as(shutdown(state), false)
  }
}

/** Forks the driver into the session's scope; `closedDone` completes when it stops. */
export const forkDriver = (state: SessionState): Effect.Effect<void> => {
  const driver = Effect.gen(function*() {
    let running = true
    while (running) running = yield* Queue.take(state.inbox).pipe(Effect.flatMap((input) => handle(state, input)))
  }).pipe(Effect.ensuring(Deferred.succeed(state.closedDone, undefined)))
  return Effect.asVoid(Effect.forkIn(Effect.interruptible(driver), state.scope))
}
