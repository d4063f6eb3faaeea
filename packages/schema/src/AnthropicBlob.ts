/**
 * The Anthropic-format message ("blob") that acx stores in Acontext with
 * `POST /session/{id}/messages {format: "anthropic", blob, meta}`, and the `meta` it sends.
 *
 * The server accepts far more than this (it validates only `role`); these schemas state what
 * acx promises to send, as refinements checked by the property tests:
 * - at least one content block;
 * - text blocks have non-empty text (tool_result text items may be empty);
 * - `tool_use` only in assistant messages, with an object `input` (a plain object, not an array;
 *   its values are whatever the caller gave, JSON-encoded when sent);
 * - `tool_result` only in user messages, `content` a string or a non-empty array of text items,
 *   `is_error` present only when `true`;
 * - `image` / `document` only in user messages, with a `base64` or `url` source.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { preserve } from "./internal/schema.js"
import { OpaqueObject } from "./Json.js"

/**
 * @since 0.1.0
 * @category schemas
 */
export const TextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.NonEmptyString
}).annotations({ identifier: "TextBlock" })

/**
 * Native thinking (`thinkingFormat: "native"`): only emitted when the source block has a
 * string `signature`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ThinkingBlock = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.NonEmptyString,
  signature: Schema.String
}).annotations({ identifier: "ThinkingBlock" })

/**
 * Redacted thinking, kept only with `includeThinking` and `thinkingFormat: "native"`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RedactedThinkingBlock = Schema.Struct({
  type: Schema.Literal("redacted_thinking"),
  data: Schema.String
}).annotations({ identifier: "RedactedThinkingBlock" })

/**
 * @since 0.1.0
 * @category schemas
 */
export const ToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: OpaqueObject
}).annotations({ identifier: "ToolUseBlock" })

/**
 * A text item inside `tool_result.content` (empty text is allowed here).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolResultTextItem = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String
}).annotations({ identifier: "ToolResultTextItem" })

/**
 * @since 0.1.0
 * @category schemas
 */
export const ToolResultContent = Schema.Union(Schema.String, Schema.NonEmptyArray(ToolResultTextItem))

/**
 * @since 0.1.0
 * @category schemas
 */
export const ToolResultBlock = Schema.Struct({
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.String,
  content: ToolResultContent,
  is_error: Schema.optionalWith(Schema.Literal(true), { exact: true })
}).annotations({ identifier: "ToolResultBlock" })

/**
 * @since 0.1.0
 * @category schemas
 */
export const Base64Source = Schema.Struct({
  type: Schema.Literal("base64"),
  media_type: Schema.String,
  data: Schema.String
}).annotations({ identifier: "Base64Source" })

/**
 * @since 0.1.0
 * @category schemas
 */
export const UrlSource = Schema.Struct({
  type: Schema.Literal("url"),
  url: Schema.String
}).annotations({ identifier: "UrlSource" })

/**
 * A user attachment, passed through as it arrived (extra fields such as `cache_control` kept).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ImageBlock = Schema.Struct({
  type: Schema.Literal("image"),
  source: Schema.Union(Base64Source, UrlSource)
}).annotations({ identifier: "ImageBlock", ...preserve })

/**
 * A user document (PDF or other), passed through as it arrived.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DocumentBlock = Schema.Struct({
  type: Schema.Literal("document"),
  source: Schema.Union(Base64Source, UrlSource)
}).annotations({ identifier: "DocumentBlock", ...preserve })

/**
 * @since 0.1.0
 * @category schemas
 */
export const UserContentBlock = Schema.Union(TextBlock, ToolResultBlock, ImageBlock, DocumentBlock)

/**
 * @since 0.1.0
 * @category models
 */
export type UserContentBlock = typeof UserContentBlock.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const AssistantContentBlock = Schema.Union(TextBlock, ThinkingBlock, RedactedThinkingBlock, ToolUseBlock)

/**
 * @since 0.1.0
 * @category models
 */
export type AssistantContentBlock = typeof AssistantContentBlock.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const UserBlob = Schema.Struct({
  role: Schema.Literal("user"),
  content: Schema.NonEmptyArray(UserContentBlock)
}).annotations({ identifier: "UserBlob" })

/**
 * @since 0.1.0
 * @category models
 */
export type UserBlob = typeof UserBlob.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const AssistantBlob = Schema.Struct({
  role: Schema.Literal("assistant"),
  content: Schema.NonEmptyArray(AssistantContentBlock)
}).annotations({ identifier: "AssistantBlob" })

/**
 * @since 0.1.0
 * @category models
 */
export type AssistantBlob = typeof AssistantBlob.Type

/**
 * What acx sends as `blob` with `format: "anthropic"`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AnthropicBlob = Schema.Union(UserBlob, AssistantBlob).annotations({ identifier: "AnthropicBlob" })

/**
 * @since 0.1.0
 * @category models
 */
export type AnthropicBlob = typeof AnthropicBlob.Type

/**
 * The `meta` sent with an assistant message (user messages are sent without meta). Keys are
 * present only when meaningful: `model` when non-empty, `has_thinking` when a thinking block
 * was actually emitted, `error` when the SDK flagged the message (e.g. `"rate_limit"`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const AssistantMeta = Schema.Struct({
  model: Schema.optionalWith(Schema.NonEmptyString, { exact: true }),
  has_thinking: Schema.optionalWith(Schema.Literal(true), { exact: true }),
  error: Schema.optionalWith(Schema.Unknown, { exact: true })
}).annotations({ identifier: "AssistantMeta" })

/**
 * @since 0.1.0
 * @category models
 */
export type AssistantMeta = typeof AssistantMeta.Type
