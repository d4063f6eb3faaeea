/**
 * Session identifiers. Claude Code, the SDK's session functions and Acontext's `use_uuid` all
 * require UUIDs (any version, case-insensitive); anything else is rejected at the boundary.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * The pattern every session id must match (the same as the SDK's own, internal UUID validator).
 *
 * @since 0.1.0
 * @category constants
 */
export const UUID_PATTERN: RegExp = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Whether a value is a UUID string.
 *
 * @since 0.1.0
 * @category guards
 */
export const isUuid = (value: unknown): value is string => typeof value === "string" && UUID_PATTERN.test(value)

/**
 * A session id: a UUID string, branded.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionId = Schema.UUID.pipe(Schema.brand("@acx/SessionId")).annotations({
  identifier: "SessionId",
  description: "A Claude / Acontext session id (UUID)"
})

/**
 * @since 0.1.0
 * @category models
 */
export type SessionId = typeof SessionId.Type

/**
 * Brands a string already known to be a UUID (see {@link isUuid}); unchecked.
 *
 * @since 0.1.0
 * @category constructors
 */
export const unsafeMake = (uuid: string): SessionId => uuid as SessionId

/**
 * Whether a value is a valid {@link SessionId}.
 *
 * @since 0.1.0
 * @category guards
 */
export const is: (value: unknown) => value is SessionId = isUuid as (value: unknown) => value is SessionId
