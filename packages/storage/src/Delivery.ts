/**
 * Where ClaudeAgentStorage and the outbox send sessions and messages: acx's own
 * {@link AcontextClient} (typed errors, retries), or any object with the `AcontextClientLike`
 * shape of Acontext's TypeScript integration (`sessions.create` / `sessions.storeMessage`,
 * Promise-based), whose errors acx does not retry: that client owns its transport.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import type { AcontextClient } from "./AcontextClient.js"
import { currentAttempts } from "./AcontextClient.js"
import type { AcontextError } from "./AcontextError.js"

/**
 * The duck-typed client of Acontext's TypeScript integration (`@acontext/acontext`'s
 * `AcontextClient` fits, as does any mock).
 *
 * @since 0.1.0
 * @category models
 */
export interface AcontextClientLike {
  readonly sessions: {
    create(options?: { useUuid?: string | null; user?: string | null }): Promise<{ readonly id: string }>
    storeMessage(
      sessionId: string,
      blob: Record<string, unknown>,
      options?: { format?: string; meta?: Record<string, unknown> | null }
    ): Promise<unknown>
  }
}

/**
 * A delivery failure: the error as the target raised it (an {@link AcontextError}, or whatever
 * a duck-typed client threw), whether it says "already exists" (HTTP 409), and how many
 * attempts were made.
 *
 * @since 0.1.0
 * @category models
 */
export interface DeliveryFailure {
  readonly error: unknown
  readonly conflict: boolean
  readonly transient: boolean
  readonly attempts: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Delivered<A> {
  readonly value: A
  readonly attempts: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Delivery {
  readonly createSession: (
    useUuid: string | null,
    user: string | null
  ) => Effect.Effect<Delivered<{ readonly id: string }>, DeliveryFailure>
  readonly storeMessage: (
    sessionId: string,
    blob: unknown,
    meta: { readonly [key: string]: unknown } | null
  ) => Effect.Effect<Delivered<void>, DeliveryFailure>
}

const counted = <A>(effect: Effect.Effect<A, AcontextError>): Effect.Effect<Delivered<A>, DeliveryFailure> =>
  FiberRef.set(currentAttempts, 0).pipe(
    Effect.zipRight(Effect.either(effect)),
    Effect.zip(FiberRef.get(currentAttempts)),
    Effect.flatMap(([result, attempts]) =>
      result._tag === "Right"
        ? Effect.succeed({ value: result.right, attempts })
        : Effect.fail({
          error: result.left,
          conflict: result.left.reason === "Conflict",
          transient: result.left.isTransient,
          attempts
        })
    )
  )

/**
 * Delivery through acx's {@link AcontextClient}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromAcontextClient = (client: AcontextClient): Delivery => ({
  createSession: (useUuid, user) => counted(client.createSession({ useUuid, user })),
  storeMessage: (sessionId, blob, meta) =>
    counted(client.storeMessage(sessionId, blob, { format: "anthropic", meta }).pipe(Effect.asVoid))
})

const statusOf = (error: unknown): number | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const e = error as { readonly statusCode?: unknown; readonly status?: unknown }
  const status = typeof e.statusCode === "number" ? e.statusCode : e.status
  return typeof status === "number" ? status : undefined
}

const fromPromise = <A>(thunk: () => Promise<A>): Effect.Effect<Delivered<A>, DeliveryFailure> =>
  Effect.tryPromise({
    try: thunk,
    catch: (error): DeliveryFailure => ({
      error,
      conflict: statusOf(error) === 409,
      transient: false,
      attempts: 1
    })
  }).pipe(Effect.map((value) => ({ value, attempts: 1 })))

/**
 * Delivery through a duck-typed client. Its errors are passed on as thrown (with
 * `statusCode`/`status` 409 recognised as "already exists") and never retried.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromClientLike = (client: AcontextClientLike): Delivery => ({
  createSession: (useUuid, user) => fromPromise(() => client.sessions.create({ useUuid, user })),
  storeMessage: (sessionId, blob, meta) =>
    fromPromise(() =>
      client.sessions.storeMessage(sessionId, blob as Record<string, unknown>, {
        format: "anthropic",
        meta: meta as Record<string, unknown> | null
      })
    ).pipe(Effect.map(({ attempts }) => ({ value: undefined, attempts })))
})
