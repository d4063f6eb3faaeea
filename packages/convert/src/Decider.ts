/**
 * The storage decider: everything `ClaudeAgentStorage` does, as pure functions.
 *
 * `decide(state, message)` says what to do with one SDK message (store a blob, adopt a session
 * id, or skip it and why); the effectful interpreter (in `@acx/storage`) performs the I/O and
 * reports what happened as events, which `evolve(state, event)` folds into the next state.
 *
 * Interpreting a `Store` decision:
 * 1. if `!state.ensured`: create the Acontext session with `use_uuid: state.sessionId` (200, 201
 *    and 409 all mean it exists) and evolve with `SessionEnsured` (on any other failure, do not
 *    evolve: the next `Store` tries again). A 409 is only meaningful when a `use_uuid` was sent:
 *    without a session id there is nothing to adopt, so it counts as a failure;
 * 2. store the blob with its meta, then evolve with `MessageStored`.
 *
 * @since 0.1.0
 */
import type * as AnthropicBlob from "@acx/schema/AnthropicBlob"
import * as SessionId from "@acx/schema/SessionId"
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import * as HashSet from "effect/HashSet"
import * as Schema from "effect/Schema"
import type { ConversionOptions, Role } from "./ContentBlocks.js"
import { isObj, type Obj } from "./internal/json.js"
import { assistantMeta, claudeAssistantMessageToAnthropicBlob, claudeUserMessageToAnthropicBlob } from "./Messages.js"
import { fromPythonMessage } from "./PythonShape.js"
import { sessionIdCandidate } from "./SessionIds.js"

/**
 * What to do with replay frames (`type: "user", isReplay: true`): `"store"` (default) stores a
 * replay unless a user message with the same `uuid` was already stored in this session;
 * `"skip"` drops every replay, as Acontext's TypeScript integration does
 * (docs/design.md#behaviour-decisions-for-claudeagentstorage).
 *
 * @since 0.1.0
 * @category models
 */
export type ReplayPolicy = "store" | "skip"

/**
 * @since 0.1.0
 * @category models
 */
export interface DeciderOptions extends ConversionOptions {
  /** Replay frames policy (default `"store"`). */
  readonly replays?: ReplayPolicy | undefined
}

/**
 * The storage state of one session.
 *
 * @since 0.1.0
 * @category models
 */
export interface StorageState {
  /** The Acontext session id, once known (explicit, resolved from the stream, or created). */
  readonly sessionId: SessionId.SessionId | null
  /** Whether the Acontext session is known to exist. */
  readonly ensured: boolean
  /** `uuid`s of user messages (replays included) stored in this session. */
  readonly storedUserUuids: HashSet.HashSet<string>
}

/**
 * An explicit session id that is not a UUID: Acontext would answer every request with 400.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidSessionId extends Schema.TaggedError<InvalidSessionId>("@acx/convert/Decider/InvalidSessionId")(
  "InvalidSessionId",
  {
    reason: Schema.Literal("NotAUuid"),
    sessionId: Schema.String
  }
) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `sessionId must be a UUID (Acontext rejects other ids), got ${JSON.stringify(this.sessionId)}`
  }
}

/**
 * The state of a new storage: with an explicit session id (which must be a UUID) or none, in
 * which case one is resolved from the stream or created by Acontext.
 *
 * @since 0.1.0
 * @category constructors
 */
export const initialState = (
  options: { readonly sessionId?: string | null | undefined } = {}
): Either.Either<StorageState, InvalidSessionId> => {
  const id = options.sessionId
  if (id === undefined || id === null) {
    return Either.right({ sessionId: null, ensured: false, storedUserUuids: HashSet.empty() })
  }
  return SessionId.isUuid(id)
    ? Either.right({ sessionId: SessionId.unsafeMake(id), ensured: false, storedUserUuids: HashSet.empty() })
    : Either.left(new InvalidSessionId({ reason: "NotAUuid", sessionId: id }))
}

/**
 * Why a message was not stored:
 * - `NotStorable`: not a user or assistant message (system, result, stream_event, …);
 * - `InvalidSessionId`: a non-storable message offered a non-UUID session id (ignored);
 * - `ReplaySkipped`: a replay frame under `replays: "skip"`;
 * - `DuplicateReplay`: a replay of a user message already stored in this session;
 * - `DuplicateUser`: a user message (not a replay) whose `uuid` is already stored in this session;
 * - `EmptyContent`: nothing storable left after conversion;
 * - `Unrecognized`: not an SDK message at all (no object, no `type`, no Python shape).
 *
 * @since 0.1.0
 * @category models
 */
export type SkipReason =
  | "NotStorable"
  | "InvalidSessionId"
  | "ReplaySkipped"
  | "DuplicateReplay"
  | "DuplicateUser"
  | "EmptyContent"
  | "Unrecognized"

/**
 * @since 0.1.0
 * @category models
 */
export type Decision = Data.TaggedEnum<{
  /** Store `blob` with `meta` (after ensuring the session). */
  Store: {
    readonly role: Role
    readonly blob: AnthropicBlob.AnthropicBlob
    readonly meta: AnthropicBlob.AssistantMeta | null
    /** The SDK message's `uuid`, when it has one. */
    readonly uuid: string | null
    readonly isReplay: boolean
  }
  /** Adopt `id` as the session id (evolve with `SessionResolved`). */
  ResolveSession: { readonly id: SessionId.SessionId }
  /** Do nothing with this message; `detail` explains it for logs. */
  Skip: { readonly reason: SkipReason; readonly detail: string }
}>

/**
 * Constructors, guards (`$is`) and matching (`$match`) for {@link Decision}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const Decision = Data.taggedEnum<Decision>()

/**
 * What the interpreter reports back.
 *
 * @since 0.1.0
 * @category models
 */
export type StorageEvent = Data.TaggedEnum<{
  /** A session id was adopted from the stream. */
  SessionResolved: { readonly id: SessionId.SessionId }
  /** The Acontext session exists (created, or already there): `id` is its id. */
  SessionEnsured: { readonly id: SessionId.SessionId }
  /** A message was stored. */
  MessageStored: { readonly role: Role; readonly uuid: string | null }
}>

/**
 * Constructors, guards and matching for {@link StorageEvent}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const StorageEvent = Data.taggedEnum<StorageEvent>()

const describeType = (message: { readonly [key: string]: unknown }): string => {
  const subtype = message["subtype"]
  return typeof subtype === "string" ? `${String(message["type"])}/${subtype}` : String(message["type"])
}

const decideNonStorable = (state: StorageState, message: { readonly [key: string]: unknown }): Decision => {
  const what = describeType(message)
  if (state.sessionId !== null) {
    return Decision.Skip({ reason: "NotStorable", detail: `${what}: not stored (session id already known)` })
  }
  const candidate = sessionIdCandidate(message)
  switch (candidate._tag) {
    case "Valid":
      return Decision.ResolveSession({ id: SessionId.unsafeMake(candidate.id) })
    case "Invalid":
      return Decision.Skip({
        reason: "InvalidSessionId",
        detail: `${what}: ignoring non-UUID session_id ${JSON.stringify(candidate.raw)}`
      })
    case "None":
      return Decision.Skip({ reason: "NotStorable", detail: `${what}: not stored` })
  }
}

const uuidOf = (message: Obj): string | null => {
  const uuid = message.uuid
  return typeof uuid === "string" && uuid !== "" ? uuid : null
}

// Decisions are built as plain literals on the hot path (same type as the `Decision`
// constructors, without their structural-equality prototype).
const store = (
  role: Role,
  blob: AnthropicBlob.AnthropicBlob,
  meta: AnthropicBlob.AssistantMeta | null,
  uuid: string | null,
  isReplay: boolean
): Decision => ({ _tag: "Store", role, blob, meta, uuid, isReplay })

const decideUser = (state: StorageState, message: Obj, options: DeciderOptions): Decision => {
  const isReplay = message.isReplay === true
  const uuid = uuidOf(message)
  if (isReplay && options.replays === "skip") {
    return Decision.Skip({ reason: "ReplaySkipped", detail: "user replay: skipped (replays: \"skip\")" })
  }
  // A user message is stored once per uuid, replay or not (the same message saved twice).
  if (uuid !== null && HashSet.has(state.storedUserUuids, uuid)) {
    return isReplay
      ? Decision.Skip({ reason: "DuplicateReplay", detail: `user replay ${uuid}: already stored` })
      : Decision.Skip({ reason: "DuplicateUser", detail: `user message ${uuid}: already stored` })
  }
  const blob = claudeUserMessageToAnthropicBlob(message)
  return blob === null
    ? Decision.Skip({ reason: "EmptyContent", detail: "user message: no storable content" })
    : store("user", blob, null, uuid, isReplay)
}

const decideAssistant = (message: Obj, options: DeciderOptions): Decision => {
  const { blob, hasThinking } = claudeAssistantMessageToAnthropicBlob(message, options)
  return blob === null
    ? Decision.Skip({ reason: "EmptyContent", detail: "assistant message: no storable content" })
    : store("assistant", blob, assistantMeta(message, hasThinking), uuidOf(message), false)
}

/**
 * Decides what to do with one message (docs/convert.md, rule 1: routing). Python-shaped dicts are
 * normalised first. Total: any value in, a decision out.
 *
 * @since 0.1.0
 * @category deciding
 */
export const decide = (state: StorageState, message: unknown, options: DeciderOptions = {}): Decision => {
  const normalized = fromPythonMessage(message)
  if (!isObj(normalized) || typeof normalized["type"] !== "string") {
    return Decision.Skip({ reason: "Unrecognized", detail: "not an SDK message (no string `type`)" })
  }
  switch (normalized["type"]) {
    case "user":
      return decideUser(state, normalized, options)
    case "assistant":
      return decideAssistant(normalized, options)
    default:
      return decideNonStorable(state, normalized)
  }
}

/**
 * Folds an event into the state. `SessionResolved` never overwrites a known id (an explicit or
 * already resolved id wins); `SessionEnsured` adopts the id Acontext confirmed.
 *
 * @since 0.1.0
 * @category evolving
 */
export const evolve = (state: StorageState, event: StorageEvent): StorageState => {
  switch (event._tag) {
    case "SessionResolved":
      return state.sessionId === null ? { ...state, sessionId: event.id } : state
    case "SessionEnsured":
      return { ...state, sessionId: event.id, ensured: true }
    case "MessageStored":
      return event.role === "user" && event.uuid !== null
        ? { ...state, storedUserUuids: HashSet.add(state.storedUserUuids, event.uuid) }
        : state
  }
}
