/**
 * The Claude Agent SDK's `SessionStore` types: keys (with the subpath rules), entries, session
 * summaries and listings. The Encoded sides line up with the SDK's `SessionKey`,
 * `SessionStoreEntry` and `SessionSummaryEntry` (checked by the type tests).
 *
 * Subpath rules (`SessionKey.subpath`):
 * - absent means the main transcript; `""` is invalid (omit the field instead);
 * - no absolute paths: no leading `/` or `\`, no Windows drive such as `C:`;
 * - no `..` segment (segments split on `/` and `\`).
 *
 * `projectKey` and `sessionId` must be non-empty. Everything else about a key is opaque.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { preserve } from "./internal/schema.js"
import { isObject, OpaqueObject } from "./Json.js"

/**
 * Why a key is invalid.
 *
 * @since 0.1.0
 * @category models
 */
export type InvalidSessionKeyReason = typeof InvalidSessionKeyReason.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const InvalidSessionKeyReason = Schema.Literal(
  "InvalidShape",
  "EmptyProjectKey",
  "EmptySessionId",
  "EmptySubpath",
  "AbsoluteSubpath",
  "ParentSegment"
)

/**
 * What each reason means, in words.
 *
 * @since 0.1.0
 * @category constants
 */
export const reasonMessages: { readonly [R in InvalidSessionKeyReason]: string } = {
  InvalidShape: "a session key is an object { projectKey: string, sessionId: string, subpath?: string }",
  EmptyProjectKey: "projectKey must not be empty",
  EmptySessionId: "sessionId must not be empty",
  EmptySubpath: "subpath must not be empty: omit it for the main transcript",
  AbsoluteSubpath: "subpath must be relative: no leading '/' or '\\' and no drive letter such as 'C:'",
  ParentSegment: "subpath must not contain a '..' segment"
}

const windowsDrive = /^[A-Za-z]:/

/**
 * The first subpath rule a string breaks, or `undefined` when it is a valid subpath.
 *
 * @since 0.1.0
 * @category validation
 */
export const checkSubpath = (
  subpath: string
): "EmptySubpath" | "AbsoluteSubpath" | "ParentSegment" | undefined => {
  if (subpath === "") return "EmptySubpath"
  if (subpath.startsWith("/") || subpath.startsWith("\\") || windowsDrive.test(subpath)) return "AbsoluteSubpath"
  if (subpath.split(/[/\\]/).some((segment) => segment === "..")) return "ParentSegment"
  return undefined
}

/**
 * Whether a string is a valid subpath.
 *
 * @since 0.1.0
 * @category guards
 */
export const isValidSubpath = (subpath: string): boolean => checkSubpath(subpath) === undefined

/**
 * A subpath: a non-empty relative path without `..` segments, e.g. `"subagents/agent-a1b2"`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Subpath = Schema.String.pipe(
  Schema.filter((subpath) => {
    const reason = checkSubpath(subpath)
    return reason === undefined ? true : `${reasonMessages[reason]} (got ${JSON.stringify(subpath)})`
  })
).annotations({ identifier: "Subpath" })

const NonEmptyKeyPart = (name: string) =>
  Schema.String.pipe(Schema.filter((s) => s.length > 0 || `${name} must not be empty`))

const ProjectKey = NonEmptyKeyPart("projectKey").annotations({ identifier: "ProjectKey" })
const StoreSessionId = NonEmptyKeyPart("sessionId").annotations({ identifier: "StoreSessionId" })

/**
 * The key of a main transcript (no subpath).
 *
 * @since 0.1.0
 * @category schemas
 */
export const MainSessionKey = Schema.Struct({
  projectKey: ProjectKey,
  sessionId: StoreSessionId
}).annotations({ identifier: "MainSessionKey", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type MainSessionKey = typeof MainSessionKey.Type

/**
 * The SDK's `SessionKey`: a main transcript (no `subpath`) or a subagent transcript
 * (`subpath` such as `"subagents/agent-<id>"`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionKey = Schema.Struct({
  projectKey: ProjectKey,
  sessionId: StoreSessionId,
  subpath: Schema.optionalWith(Subpath, { exact: true })
}).annotations({ identifier: "SessionKey", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type SessionKey = typeof SessionKey.Type

/**
 * Whether a key names a main transcript (it has no subpath).
 *
 * @since 0.1.0
 * @category guards
 */
export const isMainKey = (key: SessionKey): key is MainSessionKey => key.subpath === undefined

/**
 * A session key was rejected.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidSessionKey extends Schema.TaggedError<InvalidSessionKey>(
  "@acx/schema/SessionStore/InvalidSessionKey"
)("InvalidSessionKey", {
  reason: InvalidSessionKeyReason,
  key: Schema.Unknown
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `Invalid session key (${this.reason}): ${reasonMessages[this.reason]}`
  }
}

/**
 * Validates a key without throwing: the key itself (same object) when valid, else the first
 * rule it breaks.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateKey = (key: unknown): Either.Either<SessionKey, InvalidSessionKey> => {
  const fail = (reason: InvalidSessionKeyReason) => Either.left(new InvalidSessionKey({ reason, key }))
  if (!isObject(key)) return fail("InvalidShape")
  const { projectKey, sessionId, subpath } = key
  if (typeof projectKey !== "string" || typeof sessionId !== "string") return fail("InvalidShape")
  if (subpath !== undefined && typeof subpath !== "string") return fail("InvalidShape")
  if (projectKey === "") return fail("EmptyProjectKey")
  if (sessionId === "") return fail("EmptySessionId")
  if (subpath !== undefined) {
    const reason = checkSubpath(subpath)
    if (reason !== undefined) return fail(reason)
  }
  return Either.right(key as SessionKey)
}

/**
 * One transcript entry as the store sees it: a JSON object with a string `type`, usually a
 * `uuid` (the idempotency key) and an ISO `timestamp`; every other field is kept as it is.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionStoreEntry = Schema.Struct(
  {
    type: Schema.String,
    uuid: Schema.optionalWith(Schema.String, { exact: true }),
    timestamp: Schema.optionalWith(Schema.String, { exact: true })
  },
  OpaqueObject
).annotations({ identifier: "SessionStoreEntry" })

/**
 * @since 0.1.0
 * @category models
 */
export type SessionStoreEntry = typeof SessionStoreEntry.Type

/**
 * A storage clock reading: integer epoch milliseconds, non-negative.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Mtime = Schema.NonNegativeInt.annotations({ identifier: "Mtime" })

/**
 * The SDK's `SessionSummaryEntry`: `data` is SDK-owned and persisted verbatim.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionSummaryEntry = Schema.Struct({
  sessionId: Schema.String,
  mtime: Mtime,
  data: OpaqueObject
}).annotations({ identifier: "SessionSummaryEntry", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type SessionSummaryEntry = typeof SessionSummaryEntry.Type

/**
 * One row of `listSessions(projectKey)`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionListing = Schema.Struct({
  sessionId: Schema.String,
  mtime: Mtime
}).annotations({ identifier: "SessionListing", ...preserve })

/**
 * @since 0.1.0
 * @category models
 */
export type SessionListing = typeof SessionListing.Type
