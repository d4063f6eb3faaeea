/**
 * DTOs of the Acontext REST API (`/api/v1`) as acx uses it: the response envelope, sessions,
 * stored messages and their parts, message pages, session listings, and the request bodies of
 * `POST /session` and `POST /session/{id}/messages`. Unknown fields are preserved.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { opt, preserve } from "./internal/schema.js"
import { OpaqueObject } from "./Json.js"

/**
 * The envelope of every response: `{ code, data?, msg, error? }`. `code` is `0` on success and
 * the HTTP-like status on failure (which may differ from the HTTP status: an unknown session on
 * `POST …/messages` is HTTP 400 with `code: 500`). `error` is present only when the server is not
 * in release mode.
 *
 * @since 0.1.0
 * @category constructors
 */
export const Envelope = <A, I, R>(data: Schema.Schema<A, I, R>) =>
  Schema.Struct({
    code: Schema.Int,
    data: opt(data),
    msg: Schema.String,
    error: opt(Schema.String)
  }).annotations(preserve)

/**
 * An envelope whose `data` is not looked at (error bodies, `DELETE` responses).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ErrorEnvelope = Envelope(Schema.Unknown).annotations({ identifier: "ErrorEnvelope" })

/**
 * @since 0.1.0
 * @category models
 */
export type ErrorEnvelope = typeof ErrorEnvelope.Type

/**
 * A session.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Session = Schema.Struct({
  id: Schema.String,
  project_id: Schema.String,
  user_id: opt(Schema.NullOr(Schema.String)),
  disable_task_tracking: Schema.Boolean,
  configs: Schema.NullOr(OpaqueObject),
  created_at: Schema.String,
  updated_at: Schema.String
}).annotations({ identifier: "Session", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type Session = typeof Session.Type

/**
 * A stored part: `text`, `thinking` (`meta.signature`), `redacted_thinking` (`meta.data`),
 * `tool-call` (`meta.id/name/arguments`), `tool-result` (`meta.tool_call_id/is_error`), `image`,
 * … (`type` is open).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Part = Schema.Struct({
  type: Schema.String,
  text: opt(Schema.String),
  meta: opt(Schema.NullOr(OpaqueObject))
}).annotations({ identifier: "Part", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type Part = typeof Part.Type

/**
 * A stored message, as `POST /session/{id}/messages` returns it. `meta` is the user meta only
 * (`{}` when none was sent); `session_task_process_status` is `"pending"` or
 * `"disable_tracking"`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Message = Schema.Struct({
  id: Schema.String,
  session_id: Schema.String,
  parent_id: opt(Schema.NullOr(Schema.String)),
  role: Schema.String,
  meta: opt(Schema.NullOr(OpaqueObject)),
  parts: Schema.Array(Part),
  task_id: opt(Schema.NullOr(Schema.String)),
  session_task_process_status: opt(Schema.String),
  created_at: opt(Schema.String),
  updated_at: opt(Schema.String)
}).annotations({ identifier: "Message", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type Message = typeof Message.Type

/**
 * `GET /session/{id}/messages` with items of a given shape (it depends on the `format` query
 * parameter: Anthropic blobs for `format=anthropic`, OpenAI messages for the default `openai`).
 * `metas` holds one user meta per item and defaults to `[]` when absent or `null`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const GetMessagesOutputOf = <A, I, R>(item: Schema.Schema<A, I, R>) =>
  Schema.Struct({
    items: Schema.Array(item),
    ids: Schema.Array(Schema.String),
    metas: Schema.optionalWith(Schema.Array(OpaqueObject), { nullable: true, default: () => [] }),
    next_cursor: opt(Schema.NullOr(Schema.String)),
    has_more: Schema.Boolean,
    this_time_tokens: Schema.Number,
    edit_at_message_id: opt(Schema.NullOr(Schema.String)),
    events: opt(Schema.NullOr(Schema.Array(Schema.Unknown))),
    public_urls: opt(Schema.NullOr(OpaqueObject))
  }).annotations(preserve)

/**
 * `GET /session/{id}/messages` with items left as they are.
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetMessagesOutput = GetMessagesOutputOf(Schema.Unknown).annotations({ identifier: "GetMessagesOutput" })

/**
 * @since 0.1.0
 * @category models
 */
export type GetMessagesOutput = typeof GetMessagesOutput.Type

/**
 * `GET /session`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListSessionsOutput = Schema.Struct({
  items: Schema.Array(Session),
  next_cursor: opt(Schema.NullOr(Schema.String)),
  has_more: Schema.Boolean
}).annotations({ identifier: "ListSessionsOutput", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type ListSessionsOutput = typeof ListSessionsOutput.Type

/**
 * The body of `POST /session`. `use_uuid` must be a UUID (the server answers 400 otherwise);
 * with it, creating an existing session of the same project returns 200 and that session.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateSessionRequest = Schema.Struct({
  use_uuid: opt(Schema.UUID),
  user: opt(Schema.String),
  disable_task_tracking: opt(Schema.Boolean),
  configs: opt(Schema.NullOr(OpaqueObject))
}).annotations({ identifier: "CreateSessionRequest", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type CreateSessionRequest = typeof CreateSessionRequest.Type

/**
 * The message formats the server accepts.
 *
 * @since 0.1.0
 * @category schemas
 */
export const MessageFormat = Schema.Literal("anthropic", "openai", "gemini", "acontext")

/**
 * @since 0.1.0
 * @category models
 */
export type MessageFormat = typeof MessageFormat.Type

/**
 * The body of `POST /session/{id}/messages`: the `blob` in the given `format`, and an optional
 * user `meta` (at most 64 KB).
 *
 * @since 0.1.0
 * @category schemas
 */
export const StoreMessageRequest = Schema.Struct({
  format: MessageFormat,
  blob: Schema.Unknown,
  meta: opt(OpaqueObject)
}).annotations({ identifier: "StoreMessageRequest", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type StoreMessageRequest = typeof StoreMessageRequest.Type

/**
 * `POST /session` response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateSessionResponse = Envelope(Session).annotations({ identifier: "CreateSessionResponse" })

/**
 * @since 0.1.0
 * @category models
 */
export type CreateSessionResponse = typeof CreateSessionResponse.Type

/**
 * `POST /session/{id}/messages` response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StoreMessageResponse = Envelope(Message).annotations({ identifier: "StoreMessageResponse" })

/**
 * @since 0.1.0
 * @category models
 */
export type StoreMessageResponse = typeof StoreMessageResponse.Type

/**
 * `GET /session/{id}/messages` response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const GetMessagesResponse = Envelope(GetMessagesOutput).annotations({ identifier: "GetMessagesResponse" })

/**
 * @since 0.1.0
 * @category models
 */
export type GetMessagesResponse = typeof GetMessagesResponse.Type

/**
 * `GET /session` response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ListSessionsResponse = Envelope(ListSessionsOutput).annotations({ identifier: "ListSessionsResponse" })

/**
 * @since 0.1.0
 * @category models
 */
export type ListSessionsResponse = typeof ListSessionsResponse.Type
