/**
 * The error of changing Claude Code's settings files: a file acx cannot read, parse or write, a
 * part of it in a shape acx will not touch (`Settings`), or an option out of range
 * (`InvalidArgument`). The description says what happened and that nothing was changed when
 * that is so.
 *
 * @since 0.5.0
 */
import * as Schema from "effect/Schema"

/**
 * @since 0.5.0
 * @category errors
 */
export class ClaudeSettingsError
  extends Schema.TaggedError<ClaudeSettingsError>("@acx/claude-code/ClaudeSettingsError")("ClaudeSettingsError", {
    reason: Schema.Literal("Settings", "InvalidArgument"),
    description: Schema.String,
    cause: Schema.optionalWith(Schema.Defect, { exact: true })
  })
{
  /**
   * @since 0.5.0
   */
  override get message(): string {
    return `${this.reason}: ${this.description}`
  }
}
