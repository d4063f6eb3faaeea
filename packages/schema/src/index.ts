/**
 * @since 0.1.0
 */

/**
 * Acontext REST DTOs: the response envelope, sessions, stored messages, message pages.
 *
 * @since 0.1.0
 */
export * as Acontext from "./Acontext.js"

/**
 * The Anthropic-format blob acx stores in Acontext, with its output invariants.
 *
 * @since 0.1.0
 */
export * as AnthropicBlob from "./AnthropicBlob.js"

/**
 * Content blocks of SDK messages (assistant and user side), open-ended.
 *
 * @since 0.1.0
 */
export * as ContentBlock from "./ContentBlock.js"

/**
 * Hook inputs and outputs (SessionStart, UserPromptSubmit, PostToolUse, Stop, SessionEnd).
 *
 * @since 0.1.0
 */
export * as Hook from "./Hook.js"

/**
 * The hook events with a typed input, as plain constants (no Schema loaded).
 *
 * @since 0.1.0
 */
export * as HookEvents from "./HookEvents.js"

/**
 * JSON values and objects.
 *
 * @since 0.1.0
 */
export * as Json from "./Json.js"

/**
 * How deeply a JSON text nests, told without walking it: the cap every transcript reader applies.
 *
 * @since 0.1.0
 */
export * as JsonDepth from "./JsonDepth.js"

/**
 * Plain checks of parsed JSON, without Effect.
 *
 * @since 0.5.0
 */
export * as JsonGuards from "./JsonGuards.js"

/**
 * The Python SDK's `asdict()` message shapes (no `type` keys).
 *
 * @since 0.1.0
 */
export * as PythonMessage from "./PythonMessage.js"

/**
 * Every `SDKMessage` variant of the Claude Agent SDK, the undeclared runtime frames, and an
 * Unknown member.
 *
 * @since 0.1.0
 */
export * as SdkMessage from "./SdkMessage.js"

/**
 * Branded UUID session ids.
 *
 * @since 0.1.0
 */
export * as SessionId from "./SessionId.js"

/**
 * The SDK's `SessionStore` types: keys (with subpath rules), entries, summaries.
 *
 * @since 0.1.0
 */
export * as SessionStore from "./SessionStore.js"

/**
 * Claude Code on-disk transcript entries (open-ended union over `type`).
 *
 * @since 0.1.0
 */
export * as Transcript from "./Transcript.js"

/**
 * A transcript line's envelope read without Effect.
 *
 * @since 0.5.0
 */
export * as TranscriptEnvelope from "./TranscriptEnvelope.js"

/**
 * Reading one transcript line (the envelope check) without building the entry schemas.
 *
 * @since 0.1.0
 */
export * as TranscriptLine from "./TranscriptLine.js"

/**
 * The UUID check of session ids, without Effect.
 *
 * @since 0.4.0
 */
export * as Uuid from "./Uuid.js"
