/**
 * The UUID check every session id passes, without Effect (`SessionId` re-exports it beside its
 * Schema): what a reader that starts without Effect (the CLI's fast path) needs to list sessions
 * as `ClaudeProjects` lists them.
 *
 * @since 0.4.0
 */

/**
 * The pattern every session id must match (the same as the SDK's own, internal UUID validator).
 *
 * @since 0.4.0
 * @category constants
 */
export const UUID_PATTERN: RegExp = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Whether a value is a UUID string.
 *
 * @since 0.4.0
 * @category guards
 */
export const isUuid = (value: unknown): value is string => typeof value === "string" && UUID_PATTERN.test(value)
