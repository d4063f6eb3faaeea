/**
 * The errors of the web page's server.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * Starting or running the server failed: no free port, the built assets are missing, a source
 * (config directory, memory database) cannot be read.
 *
 * @since 0.1.0
 * @category errors
 */
export class UiError extends Schema.TaggedError<UiError>("@acx/ui/UiError")("UiError", {
  reason: Schema.Literal("Listen", "Assets", "Source", "InvalidOption"),
  description: Schema.String,
  cause: Schema.optionalWith(Schema.Defect, { exact: true })
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.description
  }
}
