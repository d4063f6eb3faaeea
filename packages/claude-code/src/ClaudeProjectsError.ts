/**
 * The error of `ClaudeProjects`, in a module of its own so that the service's internal steps
 * build it without importing the service (`ClaudeProjects` re-exports it).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * Why an operation failed:
 * - `InvalidSessionId`: not a UUID; `InvalidAgentId`: not a single safe path segment;
 * - `PathEscape`: a project key or subpath that would leave `<configDir>/projects`;
 * - `NotFound`: the file or directory does not exist;
 * - `NotAFile`: a transcript that is not a regular file (a FIFO, a socket, a device);
 * - `Io`: the file system failed; `Parse`: a sidecar is not valid JSON.
 *
 * @since 0.1.0
 * @category errors
 */
export class ClaudeProjectsError
  extends Schema.TaggedError<ClaudeProjectsError>("@acx/claude-code/ClaudeProjects/ClaudeProjectsError")(
    "ClaudeProjectsError",
    {
      reason: Schema.Literal("InvalidSessionId", "InvalidAgentId", "PathEscape", "NotFound", "NotAFile", "Io", "Parse"),
      operation: Schema.String,
      description: Schema.String,
      cause: Schema.optionalWith(Schema.Defect, { exact: true })
    }
  )
{
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `ClaudeProjects ${this.operation} failed (${this.reason}): ${this.description}`
  }
}
