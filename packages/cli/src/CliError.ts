/**
 * The CLI's own failures, and the one-line rendering of every error a command can end with.
 *
 * @since 0.1.0
 */
import * as TerminalText from "@acx/convert/TerminalText"
import * as Cause from "effect/Cause"
import * as Schema from "effect/Schema"
import { errorLine } from "./internal/userMessage.js"

/**
 * Why a command could not run:
 * - `InvalidArgument`: an argument or option has the wrong shape (not a session id, an unknown
 *   store URL, a missing API key);
 * - `NotFound`: the session, project or entry named does not exist;
 * - `Ambiguous`: a session id or prefix names more than one session;
 * - `Conflict`: the target holds something else (e.g. an Acontext session another writer filled);
 * - `TurnFailed`: a chat turn ended with an error result (the API unreachable, overloaded, …).
 *
 * @since 0.1.0
 * @category errors
 */
export class CliError extends Schema.TaggedError<CliError>("@acx/cli/CliError")("CliError", {
  reason: Schema.Literal("InvalidArgument", "NotFound", "Ambiguous", "Conflict", "TurnFailed"),
  description: Schema.String
}) {
  /**
   * @since 0.1.0
   */
  override get message(): string {
    return this.description
  }
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const invalidArgument = (description: string): CliError =>
  new CliError({ reason: "InvalidArgument", description })

/**
 * @since 0.1.0
 * @category constructors
 */
export const notFound = (description: string): CliError => new CliError({ reason: "NotFound", description })

/**
 * @since 0.1.0
 * @category constructors
 */
export const ambiguous = (description: string): CliError => new CliError({ reason: "Ambiguous", description })

/**
 * @since 0.1.0
 * @category constructors
 */
export const conflict = (description: string): CliError => new CliError({ reason: "Conflict", description })

/**
 * @since 0.1.0
 * @category constructors
 */
export const turnFailed = (description: string): CliError => new CliError({ reason: "TurnFailed", description })

/**
 * `text` made safe for one terminal line: control characters (a `\r`, `\b` or escape from a
 * binary transcript quoted in a parse error) become `?` (`TerminalText.line`, acx's one rule).
 *
 * @since 0.1.0
 * @category rendering
 */
export const printable: (text: string) => string = TerminalText.line

/**
 * One line for any failure, in the user's terms: an acx library error says what failed with the
 * path, URL or network problem ("connection refused"), never its module or operation name; any
 * other error its `message`, else its string form. Only the first non-blank line, at most 400
 * characters.
 *
 * @since 0.1.0
 * @category rendering
 */
export const describeError: (error: unknown) => string = errorLine

/**
 * One line for a cause: its first failure, else its first defect, else "interrupted".
 *
 * @since 0.1.0
 * @category rendering
 */
export const describeCause = (cause: Cause.Cause<unknown>): string => {
  const failures = Cause.failures(cause)
  for (const failure of failures) return describeError(failure)
  for (const defect of Cause.defects(cause)) return `internal error: ${describeError(defect)}`
  return "interrupted"
}
