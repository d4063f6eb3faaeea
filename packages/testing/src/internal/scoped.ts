/**
 * A scoped Effect service started for Promise code: the service, and an idempotent `close` that
 * closes its scope (what `start*` functions hand out as `close()` / `Symbol.asyncDispose`).
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"

/** Rejects with the typed failure (not a FiberFailure) when the service cannot start. @internal */
export const startScoped = async <A, E>(
  make: Effect.Effect<A, E, Scope.Scope>
): Promise<{ readonly service: A; readonly close: () => Promise<void> }> => {
  const scope = Effect.runSync(Scope.make())
  const started = await Effect.runPromiseExit(Scope.extend(make, scope))
  if (Exit.isFailure(started)) {
    await Effect.runPromise(Scope.close(scope, started))
    throw Cause.squash(started.cause)
  }
  let closing: Promise<void> | undefined
  return { service: started.value, close: () => (closing ??= Effect.runPromise(Scope.close(scope, Exit.void))) }
}
