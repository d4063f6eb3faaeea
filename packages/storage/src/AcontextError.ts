/**
 * The one error family of the Acontext client: what went wrong (`reason`), with the HTTP
 * status, the API's own `code`, `msg` and `error` when the server answered.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * Why a request failed:
 * - `Unauthorized` (401), `Forbidden` (403), `NotFound` (404), `Conflict` (409),
 *   `RateLimited` (429), `BadRequest` (400 and other 4xx), `Server` (5xx): the server answered;
 * - `Timeout`: no answer in time (also HTTP 408);
 * - `Transport`: no answer at all (connection refused or reset, DNS, …);
 * - `Decode`: an answer acx could not read (not JSON, or not the documented shape).
 *
 * @since 0.1.0
 * @category models
 */
export const AcontextErrorReason = Schema.Literal(
  "Unauthorized",
  "Forbidden",
  "BadRequest",
  "NotFound",
  "Conflict",
  "RateLimited",
  "Server",
  "Transport",
  "Timeout",
  "Decode"
)

/**
 * @since 0.1.0
 * @category models
 */
export type AcontextErrorReason = typeof AcontextErrorReason.Type

/**
 * A failed Acontext request.
 *
 * @since 0.1.0
 * @category errors
 */
export class AcontextError extends Schema.TaggedError<AcontextError>("@acx/storage/AcontextError")("AcontextError", {
  reason: AcontextErrorReason,
  /** The client operation, e.g. `"storeMessage"`. */
  operation: Schema.String,
  /** The HTTP status, when the server answered. */
  status: Schema.optionalWith(Schema.Number, { exact: true }),
  /** The envelope's `code` (Acontext puts its own code there, e.g. 500 on a 400 response). */
  code: Schema.optionalWith(Schema.Number, { exact: true }),
  /** The envelope's `msg`, or a description of what happened. */
  description: Schema.String,
  /** The envelope's `error` detail (servers in debug mode only). */
  detail: Schema.optionalWith(Schema.String, { exact: true }),
  cause: Schema.optionalWith(Schema.Defect, { exact: true })
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    const status = this.status === undefined ? "" : ` ${this.status}`
    const detail = this.detail === undefined ? "" : ` (${this.detail})`
    return `Acontext ${this.operation} failed: ${this.reason}${status}: ${this.description}${detail}`
  }

  /**
   * Whether retrying may succeed: transport failures, timeouts, rate limiting and server errors.
   *
   * @since 0.1.0
   */
  get isTransient(): boolean {
    return isTransientReason(this.reason)
  }
}

/**
 * The reasons worth a retry.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isTransientReason = (reason: AcontextErrorReason): boolean =>
  reason === "Transport" || reason === "Timeout" || reason === "RateLimited" || reason === "Server"

/**
 * The reason for an HTTP error status.
 *
 * @since 0.1.0
 * @category constructors
 */
export const reasonFromStatus = (status: number): AcontextErrorReason => {
  switch (status) {
    case 401:
      return "Unauthorized"
    case 403:
      return "Forbidden"
    case 404:
      return "NotFound"
    case 408:
      return "Timeout"
    case 409:
      return "Conflict"
    case 429:
      return "RateLimited"
    default:
      return status >= 500 ? "Server" : "BadRequest"
  }
}

/**
 * Whether a value is an {@link AcontextError}.
 *
 * @since 0.1.0
 * @category guards
 */
export const isAcontextError = (u: unknown): u is AcontextError => u instanceof AcontextError
