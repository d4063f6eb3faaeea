/**
 * Session identifiers. Claude Code, the SDK's session functions and Acontext's `use_uuid` all
 * require UUIDs (any version, case-insensitive); anything else is rejected at the boundary.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Uuid from "./Uuid.js"

/**
 * The pattern every session id must match (the same as the SDK's own, internal UUID validator).
 *
 * @since 0.1.0
 * @category constants
 */
export const UUID_PATTERN: RegExp = Uuid.UUID_PATTERN

/**
 * Whether a value is a UUID string.
 *
 * @since 0.1.0
 * @category guards
 */
export const isUuid: (value: unknown) => value is string = Uuid.isUuid

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
