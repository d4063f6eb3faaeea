/**
 * What can go wrong in the memory, as one typed error with a `reason`:
 *
 * - `Database`: the memory database could not be opened, migrated, read or written.
 * - `Corrupt`: the database file is damaged; the description names the command that restores
 *   the latest backup.
 * - `InvalidArgument`: an id, date, file or option that cannot be used (nothing was changed).
 * - `NotFound`: no observation, summary, session or backup by that id or name.
 * - `Settings`: a Claude Code settings or MCP file could not be read or written (left as it was).
 * - `WorkerRunning`: the operation needs the worker stopped (restore).
 * - `Observer`: the observer model could not be started or answered with an error.
 * - `Team`: the team's Postgres could not be read or written (the description names the server,
 *   never the password).
 * - `TeamUnreachable`: the team's Postgres could not be reached (the network, the server down):
 *   the next sync catches up.
 * - `TeamSetUp`: the team memory's tables are missing there, or this role may not use them; the
 *   description names the command that fixes it (an admin's `acx hub init`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * @since 0.1.0
 * @category errors
 */
export class MemoryError extends Schema.TaggedError<MemoryError>("@acx/memory/MemoryError")("MemoryError", {
  reason: Schema.Literal(
    "Database",
    "Corrupt",
    "InvalidArgument",
    "NotFound",
    "Settings",
    "WorkerRunning",
    "Observer",
    "Team",
    "TeamUnreachable",
    "TeamSetUp"
  ),
  description: Schema.String,
  cause: Schema.optionalWith(Schema.Defect, { exact: true })
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `${this.reason}: ${this.description}`
  }
}
