/**
 * What ClaudeAgentStorage reports when a message could not be stored: which step failed, for
 * which session and blob, and the underlying error (an `AcontextError`, or whatever a
 * duck-typed client threw).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * - `CreateSession`: the Acontext session could not be created (retried with the next message);
 * - `StoreMessage`: the message could not be stored;
 * - `Journal`: the outbox could not journal the message (disk, SQLite);
 * - `Delivery`: the outbox gave up on a journaled message (kept in the journal as failed).
 *
 * @since 0.1.0
 * @category models
 */
export const StorageErrorReason = Schema.Literal("CreateSession", "StoreMessage", "Journal", "Delivery")

/**
 * @since 0.1.0
 * @category models
 */
export type StorageErrorReason = typeof StorageErrorReason.Type

/**
 * @since 0.1.0
 * @category errors
 */
export class StorageError extends Schema.TaggedError<StorageError>("@acx/storage/StorageError")("StorageError", {
  reason: StorageErrorReason,
  sessionId: Schema.NullOr(Schema.String),
  /** The converted Anthropic blob that was not stored. */
  blob: Schema.Unknown,
  meta: Schema.NullOr(Schema.Unknown),
  /** Attempts made (1 when the target does not retry). */
  attempts: Schema.Number,
  cause: Schema.Unknown
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    const cause = this.cause instanceof Error ? this.cause.message : String(this.cause)
    const tries = this.attempts > 1 ? ` after ${this.attempts} attempts` : ""
    return `Failed to store message (session=${this.sessionId ?? "none"}): ${this.reason}${tries}: ${cause}`
  }
}
