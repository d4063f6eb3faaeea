/**
 * Where ClaudeAgentStorage and the outbox send sessions and messages: acx's own
 * {@link AcontextClient} (typed errors, retries), or any object with the `AcontextClientLike`
 * shape of Acontext's TypeScript integration (`sessions.create` / `sessions.storeMessage`,
 * Promise-based), whose errors acx does not retry: that client owns its transport.
 *
 * Delivery guarantees:
 * - **acx's client: exactly once.** Each message is stored with `storeMessageOnce`: after an
 *   ambiguous failure (no answer, a timeout, a 5xx — the server may have stored it) the
 *   session's tail is read and the message is not stored again when it is there
 *   (`Reconcile`). The delivery remembers, per session, the id of the newest message it stored
 *   (so two equal consecutive messages are not mistaken for a retry) and whether the last store
 *   failed without a clear answer (then the next store into that session reads the tail first,
 *   whatever message it carries). One tail read per ambiguous failure; nothing otherwise.
 * - **A duck-typed client: at least once.** It has no read method acx relies on, so acx cannot
 *   check what an unanswered request did; acx does not retry it either (its errors go to the
 *   error policy), but a caller or an outbox that delivers the message again may store it twice.
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
 * The stored message's id, when the target says (acx's client does; a duck-typed one: `null`).
 *
 * @since 0.1.0
 * @category models
 */
export type StoredId = string | null

/**
 * @since 0.1.0
 * @category models
 */
export interface Delivery {
  /** Whether ambiguous failures are reconciled: `true` for acx's client, `false` for a duck-typed one. */
  readonly exactlyOnce: boolean
  /**
   * The last store into this session may have been applied without an answer (e.g. the process
   * stopped while it was in flight): the next store into it reads the session's tail first.
   * `after`, when known, is the id of the session's newest message before that store (what a
   * previous `storeMessage` returned), so an equal message just before it is not mistaken for
   * it. Does nothing for a target that cannot read.
   */
  readonly markInDoubt: (sessionId: string, after?: string | null) => Effect.Effect<void>
  readonly createSession: (
    useUuid: string | null,
    user: string | null
  ) => Effect.Effect<Delivered<{ readonly id: string }>, DeliveryFailure>
  readonly storeMessage: (
    sessionId: string,
    blob: unknown,
    meta: { readonly [key: string]: unknown } | null
  ) => Effect.Effect<Delivered<StoredId>, DeliveryFailure>
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

interface Position {
  /** The newest message id of the session as acx knows it (`undefined`: not known). */
  readonly after: string | null | undefined
  readonly inDoubt: boolean
}

/**
 * Delivery through acx's {@link AcontextClient}, exactly once (see the module docs).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromAcontextClient = (client: AcontextClient): Delivery => {
  // Per session (stores into one session are sequential: ClaudeAgentStorage serialises saves,
  // the outbox delivers one entry at a time).
  const positions = new Map<string, Position>()
  return {
    exactlyOnce: true,
    markInDoubt: (sessionId, after) =>
      Effect.sync(() => {
        positions.set(sessionId, { after: after ?? positions.get(sessionId)?.after, inDoubt: true })
      }),
    createSession: (useUuid, user) => counted(client.createSession({ useUuid, user })),
    storeMessage: (sessionId, blob, meta) =>
      Effect.suspend(() => {
        const position = positions.get(sessionId)
        return counted(
          client.storeMessageOnce(sessionId, blob, {
            format: "anthropic",
            meta,
            after: position?.after,
            inDoubt: position?.inDoubt
          })
        ).pipe(
          Effect.map(({ attempts, value }) => {
            positions.set(sessionId, { after: value.id, inDoubt: false })
            return { value: value.id, attempts }
          }),
          // A failure that may hide an applied store puts the session in doubt: whatever is
          // stored next into it, the tail is read first.
          Effect.tapError((failure) =>
            Effect.sync(() => {
              positions.set(sessionId, {
                after: position?.after,
                inDoubt: position?.inDoubt === true || failure.transient
              })
            })
          )
        )
      })
  }
}

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
 * Delivery through a duck-typed client, at least once: its errors are passed on as thrown (with
 * `statusCode`/`status` 409 recognised as "already exists") and never retried, and nothing is
 * reconciled (acx reads sessions only through its own client).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromClientLike = (client: AcontextClientLike): Delivery => ({
  exactlyOnce: false,
  markInDoubt: () => Effect.void,
  createSession: (useUuid, user) => fromPromise(() => client.sessions.create({ useUuid, user })),
  storeMessage: (sessionId, blob, meta) =>
    fromPromise(() =>
      client.sessions.storeMessage(sessionId, blob as Record<string, unknown>, {
        format: "anthropic",
        meta: meta as Record<string, unknown> | null
      })
    ).pipe(Effect.map(({ attempts }) => ({ value: null, attempts })))
})
