/** Waiting for Ctrl-C or a termination request, for the commands that run until stopped. */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/** The first SIGTERM or SIGINT a command that runs until stopped received. */
export interface Signal {
  readonly _tag: "Signal"
  readonly signal: string
}

/**
 * Listens for SIGTERM and SIGINT from now until the scope closes, and gives the effect that
 * succeeds at the first one. A command that changes the terminal (hides the cursor) listens
 * before it does: with no listener, Node dies of a Ctrl-C (exit 130) and leaves the terminal as
 * it was set, and a listener installed by a fiber raced with the work may not have
 * run yet. Every signal until the scope closes is answered, so a second Ctrl-C during the cleanup
 * does not kill it halfway either.
 */
export const listenForSignal: Effect.Effect<Effect.Effect<Signal>, never, Scope.Scope> = Effect.gen(function*() {
  const first = yield* Deferred.make<Signal>()
  const on = (signal: NodeJS.Signals) => () => Deferred.unsafeDone(first, Effect.succeed({ _tag: "Signal", signal }))
  const handlers = [["SIGTERM", on("SIGTERM")], ["SIGINT", on("SIGINT")]] as const
  yield* Effect.acquireRelease(
    Effect.sync(() => {
      for (const [signal, handler] of handlers) process.on(signal, handler)
    }),
    () =>
      Effect.sync(() => {
        for (const [signal, handler] of handlers) process.off(signal, handler)
      })
  )
  return Deferred.await(first)
})
