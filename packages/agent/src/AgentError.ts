/**
 * What can go wrong in an agent conversation, as one typed error with a `reason`:
 *
 * - `StartFailed`: the Claude Code process could not start (no binary, the SDK missing, a store
 *   that would not open, no answer to the SDK's initialize request in time). An app can fall
 *   back on it (`runOnce`, another backend) — nothing was sent.
 * - `TurnFailed`: the process ended before the turn's result (it crashed, was killed, lost its
 *   stdout). Every earlier turn is in the store; the next `send` resumes from it.
 * - `Closed`: the session (or pool) was closed before or while the turn ran.
 * - `InvalidPrompt`: an empty prompt, or content that is not a list of user content blocks.
 * - `Timeout`: a pool had no free process slot within `acquireTimeout`.
 * - `LeaseLost`: another pool process owns the conversation (its lease is live), or this one's
 *   lease expired while it was paused: it may not append or record a turn.
 * - `Registry`: the registry database failed.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * @since 0.1.0
 * @category errors
 */
export class AgentError extends Schema.TaggedError<AgentError>("@acx/agent/AgentError")("AgentError", {
  reason: Schema.Literal("StartFailed", "TurnFailed", "Closed", "InvalidPrompt", "Timeout", "LeaseLost", "Registry"),
  description: Schema.String,
  /** The SDK session id of the conversation, when known. */
  sessionId: Schema.optionalWith(Schema.String, { exact: true }),
  cause: Schema.optionalWith(Schema.Defect, { exact: true })
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return `${this.reason}: ${this.description}`
  }
}
