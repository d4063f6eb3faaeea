/**
 * A pure model of `ClaudeAgentStorage`, built only from `Decider.decide` and `Decider.evolve`,
 * used to express the storage test groups of Acontext's integrations without I/O.
 *
 * It interprets decisions exactly as the doc comment of `src/Decider.ts` describes:
 * - `ResolveSession` → evolve with `SessionResolved`;
 * - `Skip` → nothing;
 * - `Store` → if `!state.ensured`, call `create({use_uuid: state.sessionId, user})`: a returned
 *   session (200 or 201) → `SessionEnsured` with the returned id; 409 → `SessionEnsured` keeping
 *   the current id; any other failure → the error policy, state not evolved (so the next `Store`
 *   creates again) and no store call. Then `storeMessage(sessionId, blob, {format: "anthropic",
 *   meta})`: success → `MessageStored`; failure → the error policy.
 *
 * The error policy is that of Acontext's TypeScript integration (its plan's Rule 10): with an
 * `onError` callback, failures are passed to it as `(error, blob)` (recorded in `errors`);
 * without one they are logged (recorded in `warned`, with the session id of its warning line). The real, effectful interpreter
 * lives in `@acx/storage`; this is test scaffolding and must stay obviously correct.
 */
import { Decider } from "@acx/convert"
import { UUID_AUTO } from "@acx/fixtures/acontextVectors"
import type * as AnthropicBlob from "@acx/schema/AnthropicBlob"
import * as SessionId from "@acx/schema/SessionId"
import { Either } from "effect"

/** What the fake client answers to `create`. */
export type CreateOutcome =
  | { readonly _tag: "Session"; readonly status: 200 | 201; readonly id: string }
  | { readonly _tag: "Failure"; readonly status: number; readonly message: string }

/** What the fake client answers to `storeMessage`. */
export type StoreOutcome =
  | { readonly _tag: "Stored" }
  | { readonly _tag: "Failure"; readonly status: number; readonly message: string }

/** A new session (201). */
export const created = (id: string): CreateOutcome => ({ _tag: "Session", status: 201, id })
/** An existing session returned by the idempotent create (200). */
export const existing = (id: string): CreateOutcome => ({ _tag: "Session", status: 200, id })
/** Any HTTP failure, e.g. `failure(409)`, `failure(500)`. */
export const failure = (status: number, message = `HTTP ${status}`) => ({ _tag: "Failure", status, message }) as const
/** A successful store. */
export const stored: StoreOutcome = { _tag: "Stored" }

/** The error the fake client "throws". */
export interface FakeApiError {
  readonly op: "create" | "storeMessage"
  readonly status: number
  readonly message: string
}

export interface CreateRequest {
  readonly use_uuid: string | null
  readonly user: string | null
}

export interface StoreRequest {
  readonly sessionId: string
  readonly blob: AnthropicBlob.AnthropicBlob
  readonly format: "anthropic"
  readonly meta: AnthropicBlob.AssistantMeta | null
}

/** The ordered calls made on the client. */
export type Call =
  | ({ readonly call: "create" } & CreateRequest)
  | ({ readonly call: "store" } & StoreRequest)

/**
 * A scripted fake client. Each function gets the request and the 0-based index of the call of
 * that kind. Defaults: `create` echoes `use_uuid` (or returns `UUID_AUTO` when there
 * is none), like upstream's mock; `storeMessage` always succeeds.
 */
export interface FakeClient {
  readonly create?: (request: CreateRequest, index: number) => CreateOutcome
  readonly storeMessage?: (request: StoreRequest, index: number) => StoreOutcome
}

/** Answers in order; the last answer repeats. */
export const script = <A>(...outcomes: [A, ...Array<A>]) => (_request: unknown, index: number): A =>
  outcomes[Math.min(index, outcomes.length - 1)]!

export interface SimulateOptions extends Decider.DeciderOptions {
  readonly sessionId?: string | null
  readonly user?: string | null
  /** `true`: the storage has an `onError(err, blob)` callback; otherwise failures are logged. */
  readonly onError?: boolean
}

export interface Run {
  readonly calls: ReadonlyArray<Call>
  /** What `onError(err, blob)` received, in order. */
  readonly errors: ReadonlyArray<{ readonly error: FakeApiError; readonly blob: AnthropicBlob.AnthropicBlob }>
  /** Failures logged ("Failed to store message (session=…)") when there is no `onError`. */
  readonly warned: ReadonlyArray<{ readonly sessionId: string | null; readonly error: FakeApiError }>
  /** One decision per message. */
  readonly decisions: ReadonlyArray<Decider.Decision>
  /** The state after each message. */
  readonly states: ReadonlyArray<Decider.StorageState>
  /** The final state. */
  readonly state: Decider.StorageState
}

/**
 * Feeds `messages` through the model. A non-UUID explicit `sessionId` is a configuration error
 * (`Left`), raised before any message is looked at.
 */
export const simulate = (
  options: SimulateOptions,
  messages: ReadonlyArray<unknown>,
  client: FakeClient = {}
): Either.Either<Run, Decider.InvalidSessionId> =>
  Either.map(Decider.initialState({ sessionId: options.sessionId }), (initial) => {
    const create = client.create ?? ((request: CreateRequest) => created(request.use_uuid ?? UUID_AUTO))
    const storeMessage = client.storeMessage ?? (() => stored)
    const user = options.user ?? null
    const calls: Array<Call> = []
    const errors: Array<{ error: FakeApiError; blob: AnthropicBlob.AnthropicBlob }> = []
    const warned: Array<{ sessionId: string | null; error: FakeApiError }> = []
    const decisions: Array<Decider.Decision> = []
    const states: Array<Decider.StorageState> = []
    let creates = 0
    let stores = 0
    let state = initial

    const fail = (error: FakeApiError, blob: AnthropicBlob.AnthropicBlob) => {
      if (options.onError === true) errors.push({ error, blob })
      else warned.push({ sessionId: state.sessionId, error })
    }

    const ensure = (blob: AnthropicBlob.AnthropicBlob): boolean => {
      if (state.ensured) return true
      const request: CreateRequest = { use_uuid: state.sessionId, user }
      calls.push({ call: "create", ...request })
      const outcome = create(request, creates++)
      if (outcome._tag === "Session") {
        if (!SessionId.isUuid(outcome.id)) throw new Error(`fake client: create returned a non-UUID id ${outcome.id}`)
        state = Decider.evolve(state, Decider.StorageEvent.SessionEnsured({ id: SessionId.unsafeMake(outcome.id) }))
        return true
      }
      // 409 means "exists": keep the current id. Without a current id a 409 cannot mean that
      // (nothing was asked for), so it goes to the error policy like any other failure.
      if (outcome.status === 409 && state.sessionId !== null) {
        state = Decider.evolve(state, Decider.StorageEvent.SessionEnsured({ id: state.sessionId }))
        return true
      }
      fail({ op: "create", status: outcome.status, message: outcome.message }, blob)
      return false
    }

    for (const message of messages) {
      const decision = Decider.decide(state, message, options)
      decisions.push(decision)
      switch (decision._tag) {
        case "ResolveSession":
          state = Decider.evolve(state, Decider.StorageEvent.SessionResolved({ id: decision.id }))
          break
        case "Skip":
          break
        case "Store": {
          if (!ensure(decision.blob) || state.sessionId === null) break
          const request: StoreRequest = {
            sessionId: state.sessionId,
            blob: decision.blob,
            format: "anthropic",
            meta: decision.meta
          }
          calls.push({ call: "store", ...request })
          const outcome = storeMessage(request, stores++)
          if (outcome._tag === "Stored") {
            state = Decider.evolve(
              state,
              Decider.StorageEvent.MessageStored({ role: decision.role, uuid: decision.uuid })
            )
          } else {
            fail({ op: "storeMessage", status: outcome.status, message: outcome.message }, decision.blob)
          }
          break
        }
      }
      states.push(state)
    }
    return { calls, errors, warned, decisions, states, state }
  })

/** {@link simulate} for runs that must not fail configuration. */
export const run = (options: SimulateOptions, messages: ReadonlyArray<unknown>, client?: FakeClient): Run =>
  Either.getOrThrowWith(simulate(options, messages, client), (error) => error)

/** The store calls of a run. */
export const storeCalls = (r: Run): ReadonlyArray<StoreRequest> =>
  r.calls.flatMap((
    c
  ) => (c.call === "store" ? [{ sessionId: c.sessionId, blob: c.blob, format: c.format, meta: c.meta }] : []))

/** The create calls of a run. */
export const createCalls = (r: Run): ReadonlyArray<CreateRequest> =>
  r.calls.flatMap((c) => (c.call === "create" ? [{ use_uuid: c.use_uuid, user: c.user }] : []))

/** The skip reasons of a run, `null` for other decisions. */
export const skipReasons = (r: Run): ReadonlyArray<Decider.SkipReason | null> =>
  r.decisions.map((d) => (d._tag === "Skip" ? d.reason : null))
