/**
 * A duck-typed `AcontextClientLike` (the client shape of Acontext's TypeScript integration) for
 * the Promise facade's tests.
 *
 * It records every `sessions.create` / `sessions.storeMessage` call in order, in the same shape
 * as `@acx/fixtures/acontextVectors`'s `create(...)` / `store(...)` builders (so the expected call
 * sequences of the pure model in packages/convert/test can be compared as they are), keeps the
 * raw arguments too (to check the exact wire options), answers from a script (a session id, or
 * an upstream-like `APIError` with a `statusCode`, thrown), and validates every stored blob
 * against `AnthropicBlob` and every meta against `AssistantMeta` (null for user messages),
 * recording the invalid ones so a test can assert there were none.
 */
import { UUID_AUTO } from "@acx/fixtures/acontextVectors"
import * as AnthropicBlob from "@acx/schema/AnthropicBlob"
import type { AcontextClientLike } from "@acx/storage/promise"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/**
 * The error upstream's TS client throws for an HTTP failure (`APIError` of acontext-ts:
 * `name`, `statusCode`, `code`, `message`).
 */
export class ApiError extends Error {
  override readonly name = "APIError"
  constructor(readonly statusCode: number, message = `HTTP ${statusCode}`, readonly code: number = statusCode) {
    super(message)
  }
}

/** A thrown `ApiError`, for scripts. */
export const apiError = (statusCode: number, message?: string): Thrown => ({
  _tag: "Throw",
  error: new ApiError(statusCode, message)
})

/** What a scripted call does: resolve with a value, or throw (reject with) an error. */
export type Thrown = { readonly _tag: "Throw"; readonly error: unknown }
export type CreateAnswer = { readonly id: string } | Thrown
export type StoreAnswer = { readonly ok: true } | Thrown

/** A successful create answer. */
export const session = (id: string): CreateAnswer => ({ id })
/** A successful store answer. */
export const ok: StoreAnswer = { ok: true }
/** Rejects with any value (not necessarily an Error). */
export const throws = (error: unknown): Thrown => ({ _tag: "Throw", error })

/** Answers in order; the last answer repeats. */
export const script = <A>(...answers: [A, ...Array<A>]) => (_request: unknown, index: number): A =>
  answers[Math.min(index, answers.length - 1)]!

export interface CreateCall {
  readonly call: "create"
  readonly use_uuid: string | null
  readonly user: string | null
}

export interface StoreCall {
  readonly call: "store"
  readonly sessionId: string
  readonly blob: unknown
  readonly format: string | undefined
  readonly meta: unknown
}

export type Call = CreateCall | StoreCall

/** Exactly what the client received. */
export type RawCall =
  | { readonly method: "create"; readonly args: ReadonlyArray<unknown> }
  | { readonly method: "storeMessage"; readonly args: ReadonlyArray<unknown> }

/** A stored blob or meta that does not satisfy acx's promise (`AnthropicBlob`, `AssistantMeta`). */
export interface Invalid {
  readonly blob: unknown
  readonly meta: unknown
  readonly problem: string
}

export interface RecordingClientOptions {
  /** Default: echoes `useUuid`, or returns `UUID_AUTO` when there is none (like upstream's mock). */
  readonly create?: (request: CreateCall, index: number) => CreateAnswer | Promise<CreateAnswer>
  /** Default: always succeeds. */
  readonly storeMessage?: (request: StoreCall, index: number) => StoreAnswer | Promise<StoreAnswer>
}

export interface RecordingClient extends AcontextClientLike {
  /** Every call, in order, in the fixtures' `create(...)` / `store(...)` shape. */
  readonly calls: Array<Call>
  /** Every call's raw arguments, in order. */
  readonly raw: Array<RawCall>
  /** Stored blobs/metas that failed validation. */
  readonly invalid: Array<Invalid>
  /** The store calls only. */
  readonly stores: () => ReadonlyArray<StoreCall>
  /** The create calls only. */
  readonly creates: () => ReadonlyArray<CreateCall>
}

const isBlob = Schema.decodeUnknownEither(AnthropicBlob.AnthropicBlob, { onExcessProperty: "error" })
const isMeta = Schema.decodeUnknownEither(AnthropicBlob.AssistantMeta, { onExcessProperty: "error" })

const validate = (blob: unknown, meta: unknown): string | undefined => {
  const decodedBlob = isBlob(blob)
  if (decodedBlob._tag === "Left") return `blob: ${ParseResult.TreeFormatter.formatErrorSync(decodedBlob.left)}`
  const role = decodedBlob.right.role
  if (role === "user") {
    return meta === null
      ? undefined
      : `meta of a user message must be null, got ${JSON.stringify(meta)}`
  }
  if (meta === null) return undefined
  const decodedMeta = isMeta(meta)
  if (decodedMeta._tag === "Left") return `meta: ${ParseResult.TreeFormatter.formatErrorSync(decodedMeta.left)}`
  return Object.keys(meta as object).length === 0 ? "meta: {} must be sent as null" : undefined
}

const settle = <A>(answer: A | Thrown): A => {
  if (typeof answer === "object" && answer !== null && (answer as Thrown)._tag === "Throw") {
    throw (answer as Thrown).error
  }
  return answer as A
}

/** A new recording client. */
export const recordingClient = (options: RecordingClientOptions = {}): RecordingClient => {
  const calls: Array<Call> = []
  const raw: Array<RawCall> = []
  const invalid: Array<Invalid> = []
  let creates = 0
  let stores = 0
  const create = options.create ?? ((request: CreateCall) => session(request.use_uuid ?? UUID_AUTO))
  const storeMessage = options.storeMessage ?? (() => ok)
  return {
    calls,
    raw,
    invalid,
    stores: () => calls.filter((c): c is StoreCall => c.call === "store"),
    creates: () => calls.filter((c): c is CreateCall => c.call === "create"),
    sessions: {
      async create(...args) {
        raw.push({ method: "create", args })
        const [opts] = args
        const request: CreateCall = { call: "create", use_uuid: opts?.useUuid ?? null, user: opts?.user ?? null }
        calls.push(request)
        const answer = settle(await create(request, creates++))
        return { id: answer.id }
      },
      async storeMessage(...args) {
        raw.push({ method: "storeMessage", args })
        const [sessionId, blob, opts] = args
        const request: StoreCall = {
          call: "store",
          sessionId,
          blob,
          format: opts?.format,
          meta: opts?.meta
        }
        calls.push(request)
        const problem = validate(blob, opts?.meta)
        if (problem !== undefined) invalid.push({ blob: request.blob, meta: request.meta, problem })
        settle(await storeMessage(request, stores++))
        return { id: `msg-${stores}` }
      }
    }
  }
}
