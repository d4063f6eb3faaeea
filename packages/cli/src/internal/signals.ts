/** Waiting for Ctrl-C or a termination request, for the commands that run until stopped. */
import * as Effect from "effect/Effect"

/** Succeeds with the signal's name at the first SIGTERM or SIGINT (the handlers go after). */
export const untilSignal = Effect.async<{ readonly _tag: "Signal"; readonly signal: string }>((resume) => {
  const on = (signal: NodeJS.Signals) => () => resume(Effect.succeed({ _tag: "Signal", signal }))
  const handlers = [["SIGTERM", on("SIGTERM")], ["SIGINT", on("SIGINT")]] as const
  for (const [signal, handler] of handlers) process.once(signal, handler)
  return Effect.sync(() => {
    for (const [signal, handler] of handlers) process.off(signal, handler)
  })
})
