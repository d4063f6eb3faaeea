/**
 * The shapes of acx's command table (`CommandTable.ts`): a command, its options and positional
 * arguments, and what a command's module gives the runner. Plain data, no Effect: the table, the
 * parser, the help and the docs generator read these, and a command loads only when it runs.
 *
 * @since 0.6.0
 */
import type { CommandIo } from "./CommandIo.js"

/**
 * What an option's value is: `text`, an `integer`, a `float`, one of `choices`, an existing
 * `directory`, or a `boolean` flag (no value).
 *
 * @since 0.6.0
 * @category models
 */
export type ValueType = "text" | "integer" | "float" | "choice" | "directory" | "boolean"

/**
 * One option: `--name VALUE` (or `--name=VALUE`, `-a VALUE` with its alias). Its key in the
 * options a command receives is its name in camelCase (`--no-thinking` → `noThinking`).
 *
 * @since 0.6.0
 * @category models
 */
export interface OptionSpec {
  readonly name: string
  /** A one-letter alias: `-p`. */
  readonly alias?: string
  readonly type: ValueType
  /** The accepted values of a `choice` option. */
  readonly choices?: ReadonlyArray<string>
  /** The value when the option is not given (shown as `(default: X)`); else `undefined` (flags: `false`). */
  readonly default?: string | number
  /** Must be given (shown as `(required)`). */
  readonly required?: boolean
  readonly description: string
}

/**
 * One positional argument: `<name>`, `[<name>]` when optional, `<name>...` when it takes every
 * remaining word (`atLeastOne`: one or more; `any`: zero or more, an array either way).
 *
 * @since 0.6.0
 * @category models
 */
export interface ArgumentSpec {
  readonly name: string
  /** Its key in the options (default: the name in lower case). */
  readonly key?: string
  readonly optional?: boolean
  readonly variadic?: "atLeastOne" | "any"
  /** The accepted values, if only some are. */
  readonly choices?: ReadonlyArray<string>
  readonly description: string
}

/**
 * What a command does: given its parsed options and the I/O, the exit code (0 ok, 1 failed, 2 bad
 * usage). A command that throws a {@link UsageFailure} exits 2 with its one line.
 *
 * @since 0.6.0
 * @category models
 */

export type CommandRun<Options = any> = (options: Options, io: CommandIo) => Promise<number>

/**
 * One command of the table. A command with `subcommands` and no `load` prints its help.
 *
 * @since 0.6.0
 * @category models
 */
export interface CommandSpec {
  readonly name: string
  readonly description: string
  readonly options?: ReadonlyArray<OptionSpec>
  readonly arguments?: ReadonlyArray<ArgumentSpec>
  readonly subcommands?: ReadonlyArray<CommandSpec>
  /** The command's module, imported when it runs (`() => import("./commands/x.js").then(m => m.run)`). */
  readonly load?: () => Promise<CommandRun>
  /**
   * A bundle of its own beside the built entry (`hook.cjs`), required instead of `load` when it
   * exists (not for `--help`): for what Claude Code runs within a deadline. It reads
   * `process.argv` itself and answers its own bad command lines.
   */
  readonly bundle?: string
  /**
   * Its arguments are not parsed: they go to the command as they are (`acx hook <Event>`: a hook
   * never fails Claude Code on a command line it does not know).
   */
  readonly passthrough?: boolean
  /** Left out of `--help` and of the command lists (what Claude Code runs, not a person). */
  readonly hidden?: boolean
}

/**
 * A bad command line: one line (without `acx: `), exit 2.
 *
 * @since 0.6.0
 * @category errors
 */
export class UsageFailure extends Error {
  override readonly name = "UsageFailure"
}

/**
 * An option's key in the options a command receives: its name in camelCase.
 *
 * @since 0.6.0
 * @category models
 */
export const optionKey = (option: OptionSpec): string =>
  option.name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase())

/**
 * An argument's key in the options a command receives.
 *
 * @since 0.6.0
 * @category models
 */
export const argumentKey = (argument: ArgumentSpec): string => argument.key ?? argument.name.toLowerCase()
