/**
 * Storing a message exactly once: a write whose outcome is unknown (a timeout, a dropped
 * connection, a 5xx) is settled by reading the session's tail (`Reconcile.verdict`) before it is
 * tried again, so a message the server did store is found, not stored twice. The retries follow
 * the client's schedule; a rejection (4xx) ends at once.
 */
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type { AcontextError } from "../AcontextError.js"
import * as Reconcile from "../Reconcile.js"

/** One message to store, and the calls it is stored and checked with. */
export interface StoreOnceInput {
  readonly blob: unknown
  readonly meta: Reconcile.VerdictInput["meta"]
  /** The session's newest message before this one, as the caller last saw it. */
  readonly after: string | null | undefined
  /** A previous attempt may have been applied: read the tail first. */
  readonly inDoubt: boolean
  /** One store attempt (not retried by itself). */
  readonly store: Effect.Effect<{ readonly id: string }, AcontextError>
  /** The session's newest messages, oldest first. */
  readonly tail: Effect.Effect<ReadonlyArray<Reconcile.TailMessage>, AcontextError>
  readonly retry: Schedule.Schedule<unknown, AcontextError> | false
}

/** The stored message's id, whether it was found already stored, and how many tail reads it took. */
export const storeOnce = (
  input: StoreOnceInput
): Effect.Effect<{ readonly id: string; readonly found: boolean; readonly reads: number }, AcontextError> =>
  Effect.gen(function*() {
    const { blob, meta } = input
    let after = input.after
    let inDoubt = input.inDoubt
    let reads = 0
    // Reads the tail: the message's id when it is there already, else undefined.
    const reconcile = Effect.gen(function*() {
      const tail = yield* input.tail
      reads++
      const verdict = Reconcile.verdict({ after, tail, blob, meta })
      inDoubt = false
      if (verdict._tag === "Stored") return verdict.id
      after = verdict.after
      return undefined
    })
    const schedule: Schedule.Schedule<unknown, AcontextError> = input.retry === false ? Schedule.stop : input.retry
    const backoff = yield* Schedule.driver(schedule)
    while (true) {
      let error: AcontextError
      const checked = inDoubt ? yield* Effect.either(reconcile) : undefined
      if (checked?._tag === "Right" && checked.right !== undefined) {
        return { id: checked.right, found: true, reads }
      }
      if (checked?._tag === "Left") {
        error = checked.left
      } else {
        const stored = yield* Effect.either(input.store)
        if (stored._tag === "Right") return { id: stored.right.id, found: false, reads }
        error = stored.left
        if (Reconcile.isAmbiguousReason(error.reason)) {
          // The server may have stored it: look now, before any wait.
          inDoubt = true
          const found = yield* Effect.either(reconcile)
          if (found._tag === "Right" && found.right !== undefined) return { id: found.right, found: true, reads }
        }
      }
      if (!error.isTransient) return yield* error
      const next = yield* Effect.either(backoff.next(error))
      if (next._tag === "Left") return yield* error
    }
  })
