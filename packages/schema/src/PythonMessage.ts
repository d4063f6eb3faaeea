/**
 * The Python Claude Agent SDK's messages as `dataclasses.asdict()` turns them into dicts: no
 * `type` key anywhere, so messages and content blocks are told apart by which keys are present,
 * checked in the order of the Python integration plan.
 *
 * Two layers:
 * - **Guards** (`classifyPythonMessage`, `classifyPythonBlock`, `isPyAssistantMessage`, …)
 *   implement exactly the key-presence rules and look at nothing else (not at value types).
 *   They are what a converter uses to route a dict the way the Python integration does.
 * - **Schemas** decode a dict into the member its keys select, and additionally check the value
 *   types. A member never accepts a dict whose keys select another kind; a dict whose keys select
 *   a kind but whose values have the wrong types (e.g. `{ text: 5 }`) decodes as the Unknown
 *   member instead, and any other object decodes as Unknown too. Unknown keys are preserved.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { Open, preserve } from "./internal/schema.js"
import { isObject, OpaqueObject } from "./Json.js"

const has = (value: { readonly [key: string]: unknown }, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(value, key)

// -------------------------------------------------------------------------------------------------
// key-presence rules
// -------------------------------------------------------------------------------------------------

/**
 * The kinds of Python content block, in the order they are checked.
 *
 * @since 0.1.0
 * @category models
 */
export type PythonBlockKind = "thinking" | "tool_use" | "tool_result" | "text" | "unknown"

/**
 * Classifies a content block by key presence, first match wins:
 * `thinking` + `signature` → thinking; `id` + `name` + `input` → tool_use; `tool_use_id` →
 * tool_result; `text` → text; anything else (including non-objects) → unknown.
 *
 * @since 0.1.0
 * @category guards
 */
export const classifyPythonBlock = (value: unknown): PythonBlockKind => {
  if (!isObject(value)) return "unknown"
  if (has(value, "thinking") && has(value, "signature")) return "thinking"
  if (has(value, "id") && has(value, "name") && has(value, "input")) return "tool_use"
  if (has(value, "tool_use_id")) return "tool_result"
  if (has(value, "text")) return "text"
  return "unknown"
}

/**
 * Whether a value is a `ThinkingBlock` dict by the key-presence rules.
 *
 * @since 0.1.0
 * @category guards
 */
export const isPyThinkingBlock = (value: unknown): boolean => classifyPythonBlock(value) === "thinking"

/**
 * Whether a value is a `ToolUseBlock` dict by the key-presence rules.
 *
 * @since 0.1.0
 * @category guards
 */
export const isPyToolUseBlock = (value: unknown): boolean => classifyPythonBlock(value) === "tool_use"

/**
 * Whether a value is a `ToolResultBlock` dict by the key-presence rules.
 *
 * @since 0.1.0
 * @category guards
 */
export const isPyToolResultBlock = (value: unknown): boolean => classifyPythonBlock(value) === "tool_result"

/**
 * Whether a value is a `TextBlock` dict by the key-presence rules.
 *
 * @since 0.1.0
 * @category guards
 */
export const isPyTextBlock = (value: unknown): boolean => classifyPythonBlock(value) === "text"

/**
 * The kinds of Python message, in the order they are checked.
 *
 * @since 0.1.0
 * @category models
 */
export type PythonMessageKind = "assistant" | "user" | "system" | "result" | "stream_event" | "unknown"

/**
 * Classifies a message by key presence, first match wins:
 * `content` + `model` → assistant; `content` → user; `subtype` + `data` → system;
 * `subtype` + `session_id` → result; `uuid` + `session_id` + `event` → stream_event; anything
 * else (including non-objects) → unknown.
 *
 * @since 0.1.0
 * @category guards
 */
export const classifyPythonMessage = (value: unknown): PythonMessageKind => {
  if (!isObject(value)) return "unknown"
  if (has(value, "content")) return has(value, "model") ? "assistant" : "user"
  if (has(value, "subtype") && has(value, "data")) return "system"
  if (has(value, "subtype") && has(value, "session_id")) return "result"
  if (has(value, "uuid") && has(value, "session_id") && has(value, "event")) return "stream_event"
  return "unknown"
}

/**
 * Whether a value is an `AssistantMessage` dict: it has `content` and `model`.
 *
 * @since 0.1.0
 * @category guards
 */
export const isPyAssistantMessage = (value: unknown): boolean => classifyPythonMessage(value) === "assistant"

/**
 * Whether a value is a `UserMessage` dict: it has `content` and no `model`.
 *
 * @since 0.1.0
 * @category guards
 */
export const isPyUserMessage = (value: unknown): boolean => classifyPythonMessage(value) === "user"

/**
 * Whether a value is a `SystemMessage` dict: `subtype` and `data`, no `content`.
 *
 * @since 0.1.0
 * @category guards
 */
export const isPySystemMessage = (value: unknown): boolean => classifyPythonMessage(value) === "system"

/**
 * Whether a value is a `ResultMessage` dict: `subtype` and `session_id`, no `content` (and not
 * a system message).
 *
 * @since 0.1.0
 * @category guards
 */
export const isPyResultMessage = (value: unknown): boolean => classifyPythonMessage(value) === "result"

/**
 * Whether a value is a `StreamEvent` dict: `uuid`, `session_id` and `event` (and none of the
 * earlier kinds).
 *
 * @since 0.1.0
 * @category guards
 */
export const isPyStreamEvent = (value: unknown): boolean => classifyPythonMessage(value) === "stream_event"

const selectedBlock = (kind: PythonBlockKind, name: string) => (value: unknown): true | string =>
  classifyPythonBlock(value) === kind || `the keys of this dict select another block kind than ${name}`

const selectedMessage = (kind: PythonMessageKind, name: string) => (value: unknown): true | string =>
  classifyPythonMessage(value) === kind || `the keys of this dict select another message kind than ${name}`

// -------------------------------------------------------------------------------------------------
// blocks
// -------------------------------------------------------------------------------------------------

/**
 * `TextBlock`: `{ text }`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PyTextBlock = Schema.Struct({
  text: Schema.String
}).annotations(preserve).pipe(Schema.filter(selectedBlock("text", "PyTextBlock"))).annotations({
  identifier: "PyTextBlock"
})

/**
 * @since 0.1.0
 * @category models
 */
export type PyTextBlock = typeof PyTextBlock.Type

/**
 * `ThinkingBlock`: `{ thinking, signature }`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PyThinkingBlock = Schema.Struct({
  thinking: Schema.String,
  signature: Schema.String
}).annotations(preserve).pipe(Schema.filter(selectedBlock("thinking", "PyThinkingBlock"))).annotations({
  identifier: "PyThinkingBlock"
})

/**
 * @since 0.1.0
 * @category models
 */
export type PyThinkingBlock = typeof PyThinkingBlock.Type

/**
 * `ToolUseBlock`: `{ id, name, input }` (`input` a dict in the SDK; kept as it is).
 *
 * @since 0.1.0
 * @category schemas
 */
export const PyToolUseBlock = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  input: Schema.Unknown
}).annotations(preserve).pipe(Schema.filter(selectedBlock("tool_use", "PyToolUseBlock"))).annotations({
  identifier: "PyToolUseBlock"
})

/**
 * @since 0.1.0
 * @category models
 */
export type PyToolUseBlock = typeof PyToolUseBlock.Type

/**
 * `ToolResultBlock.content`: a string, a list (of `{type: "text", text}` dicts and others), or
 * `None`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PyToolResultContent = Schema.NullOr(Schema.Union(Schema.String, Schema.Array(Schema.Unknown)))

/**
 * `ToolResultBlock`: `{ tool_use_id, content?, is_error? }`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PyToolResultBlock = Schema.Struct({
  tool_use_id: Schema.String,
  content: Schema.optionalWith(PyToolResultContent, { exact: true }),
  is_error: Schema.optionalWith(Schema.NullOr(Schema.Boolean), { exact: true })
}).annotations(preserve).pipe(Schema.filter(selectedBlock("tool_result", "PyToolResultBlock"))).annotations({
  identifier: "PyToolResultBlock"
})

/**
 * @since 0.1.0
 * @category models
 */
export type PyToolResultBlock = typeof PyToolResultBlock.Type

/**
 * Any other dict in a content list (e.g. a block of a newer SDK), or a dict whose keys select a
 * kind but whose values have the wrong types.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PyUnknownBlock = OpaqueObject.annotations({ identifier: "PyUnknownBlock" })

/**
 * @since 0.1.0
 * @category models
 */
export type PyUnknownBlock = typeof PyUnknownBlock.Type

/**
 * The known block kinds.
 *
 * @since 0.1.0
 * @category schemas
 */
export const KnownPythonBlock = Schema.Union(PyThinkingBlock, PyToolUseBlock, PyToolResultBlock, PyTextBlock)

/**
 * @since 0.1.0
 * @category models
 */
export type KnownPythonBlock = typeof KnownPythonBlock.Type

/**
 * A content block dict, open-ended (Unknown last).
 *
 * @since 0.1.0
 * @category schemas
 */
export const PythonBlock = Schema.Union(PyThinkingBlock, PyToolUseBlock, PyToolResultBlock, PyTextBlock, PyUnknownBlock)
  .annotations({ identifier: "PythonBlock" })

/**
 * @since 0.1.0
 * @category models
 */
export type PythonBlock = typeof PythonBlock.Type

// -------------------------------------------------------------------------------------------------
// messages
// -------------------------------------------------------------------------------------------------

/**
 * `UserMessage`: `{ content: str | [blocks], uuid?, parent_tool_use_id?, tool_use_result? }`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PyUserMessage = Schema.Struct({
  content: Schema.Union(Schema.String, Schema.Array(PythonBlock)),
  uuid: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  parent_tool_use_id: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  tool_use_result: Schema.optionalWith(Schema.NullOr(OpaqueObject), { exact: true })
}).annotations(preserve).pipe(Schema.filter(selectedMessage("user", "PyUserMessage"))).annotations({
  identifier: "PyUserMessage"
})

/**
 * @since 0.1.0
 * @category models
 */
export type PyUserMessage = typeof PyUserMessage.Type

/**
 * `AssistantMessage`: `{ content: [blocks], model, parent_tool_use_id?, error? }`. `error` is
 * one of the SDK's `AssistantMessageError` strings (`"rate_limit"`, `"authentication_failed"`, …)
 * or `None`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PyAssistantMessage = Schema.Struct({
  content: Schema.Array(PythonBlock),
  model: Schema.String,
  parent_tool_use_id: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  error: Schema.optionalWith(
    Schema.NullOr(
      Open("authentication_failed", "billing_error", "rate_limit", "invalid_request", "server_error", "unknown")
    ),
    { exact: true }
  )
}).annotations(preserve).pipe(Schema.filter(selectedMessage("assistant", "PyAssistantMessage"))).annotations({
  identifier: "PyAssistantMessage"
})

/**
 * @since 0.1.0
 * @category models
 */
export type PyAssistantMessage = typeof PyAssistantMessage.Type

/**
 * `SystemMessage`: `{ subtype, data }`; for `subtype: "init"`, `data` is the raw init frame
 * (holding `session_id`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const PySystemMessage = Schema.Struct({
  subtype: Schema.String,
  data: OpaqueObject
}).annotations(preserve).pipe(Schema.filter(selectedMessage("system", "PySystemMessage"))).annotations({
  identifier: "PySystemMessage"
})

/**
 * @since 0.1.0
 * @category models
 */
export type PySystemMessage = typeof PySystemMessage.Type

/**
 * `ResultMessage`: `{ subtype, session_id, duration_ms?, … }`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PyResultMessage = Schema.Struct({
  subtype: Schema.String,
  session_id: Schema.String,
  duration_ms: Schema.optionalWith(Schema.Number, { exact: true }),
  duration_api_ms: Schema.optionalWith(Schema.Number, { exact: true }),
  is_error: Schema.optionalWith(Schema.Boolean, { exact: true }),
  num_turns: Schema.optionalWith(Schema.Number, { exact: true }),
  total_cost_usd: Schema.optionalWith(Schema.NullOr(Schema.Number), { exact: true }),
  usage: Schema.optionalWith(Schema.NullOr(OpaqueObject), { exact: true }),
  result: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  stop_reason: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  structured_output: Schema.optionalWith(Schema.Unknown, { exact: true })
}).annotations(preserve).pipe(Schema.filter(selectedMessage("result", "PyResultMessage"))).annotations({
  identifier: "PyResultMessage"
})

/**
 * @since 0.1.0
 * @category models
 */
export type PyResultMessage = typeof PyResultMessage.Type

/**
 * `StreamEvent`: `{ uuid, session_id, event, parent_tool_use_id? }`. `event` is the raw Anthropic
 * stream event (a dict in the SDK; kept as it is).
 *
 * @since 0.1.0
 * @category schemas
 */
export const PyStreamEvent = Schema.Struct({
  uuid: Schema.String,
  session_id: Schema.String,
  event: Schema.Unknown,
  parent_tool_use_id: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true })
}).annotations(preserve).pipe(Schema.filter(selectedMessage("stream_event", "PyStreamEvent"))).annotations({
  identifier: "PyStreamEvent"
})

/**
 * @since 0.1.0
 * @category models
 */
export type PyStreamEvent = typeof PyStreamEvent.Type

/**
 * Any other dict (e.g. a message kind of a newer SDK), or a dict whose keys select a kind but
 * whose values have the wrong types.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PyUnknownMessage = OpaqueObject.annotations({ identifier: "PyUnknownMessage" })

/**
 * @since 0.1.0
 * @category models
 */
export type PyUnknownMessage = typeof PyUnknownMessage.Type

/**
 * The known message kinds.
 *
 * @since 0.1.0
 * @category schemas
 */
export const KnownPythonMessage = Schema.Union(
  PyAssistantMessage,
  PyUserMessage,
  PySystemMessage,
  PyResultMessage,
  PyStreamEvent
)

/**
 * @since 0.1.0
 * @category models
 */
export type KnownPythonMessage = typeof KnownPythonMessage.Type

/**
 * A Python SDK message dict, open-ended (Unknown last).
 *
 * @since 0.1.0
 * @category schemas
 */
export const PythonMessage = Schema.Union(
  PyAssistantMessage,
  PyUserMessage,
  PySystemMessage,
  PyResultMessage,
  PyStreamEvent,
  PyUnknownMessage
).annotations({ identifier: "PythonMessage" })

/**
 * @since 0.1.0
 * @category models
 */
export type PythonMessage = typeof PythonMessage.Type
