/**
 * How a hub operation fails (`PostgresHub`): one tagged error with a reason, in a module of its
 * own so that the hub's internal modules name it without importing the hub.
 *
 * @since 0.4.0
 */
import * as Schema from "effect/Schema"

/**
 * Why a hub operation failed:
 * - `InvalidName`: a role name that is not a plain identifier, or a reserved one;
 * - `NotFound`: the role named does not exist, or is no member of the hub;
 * - `Conflict`: the role to create exists already;
 * - `Privilege`: the connecting role may not do this (e.g. `init` without CREATEROLE);
 * - `Storage`: any other failure of the database.
 *
 * @since 0.4.0
 * @category errors
 */
export class PostgresHubError extends Schema.TaggedError<PostgresHubError>("@acx/session-store/PostgresHubError")(
  "PostgresHubError",
  {
    reason: Schema.Literal("InvalidName", "NotFound", "Conflict", "Privilege", "Storage"),
    operation: Schema.String,
    description: Schema.String,
    cause: Schema.optionalWith(Schema.Defect, { exact: true })
  }
) {
  /**
   * @since 0.4.0
   */
  override get message(): string {
    return `PostgresHub ${this.operation} failed (${this.reason}): ${this.description}`
  }
}
