/**
 * The `acx` command line: the root command, its subcommands, and `run`, which maps every ending
 * to an exit code (0 ok, 1 a command failed, 2 bad usage or an invalid argument) with failures printed as one line.
 *
 * @since 0.1.0
 */
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { CliError, describeCause } from "./CliError.js"
import { chat } from "./commands/chat.js"
import { demo } from "./commands/demo.js"
import { fork } from "./commands/fork.js"
import { importCommand } from "./commands/import.js"
import { memory } from "./commands/memory.js"
import { push } from "./commands/push.js"
import { sessions } from "./commands/sessions.js"
import { show } from "./commands/show.js"
import { stats } from "./commands/stats.js"
import { VERSION as version } from "./internal/version.js"

/**
 * The version `acx --version` prints.
 *
 * @since 0.1.0
 */
export const VERSION = version

/**
 * The root command.
 *
 * @since 0.1.0
 * @category commands
 */
export const acx = Command.make("acx").pipe(
  Command.withDescription(
    "Read, import and push Claude Code sessions: list, show, stats, import into SQLite/Postgres, push to Acontext, fork; chat on a warm, resumable Claude Code process; a memory for Claude Code across sessions"
  ),
  Command.withSubcommands([sessions, show, stats, importCommand, push, fork, chat, memory, demo])
)

const cli = Command.run(acx, { name: "acx", version: VERSION })

/**
 * Runs `acx` on `argv` (as `process.argv`: node and script first) and resolves to the exit code.
 * Never rejects: failures are printed to stderr as one line (`acx: …`); bad usage has already
 * been explained by the parser.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (argv: ReadonlyArray<string>): Promise<number> =>
  Effect.runPromiseExit(
    cli(argv).pipe(
      Effect.provide(
        Layer.mergeAll(
          NodeContext.layer,
          CliConfig.layer({ showBuiltIns: false }),
          Logger.minimumLogLevel(LogLevel.Warning)
        )
      )
    )
  ).then((exit) => {
    if (Exit.isSuccess(exit)) return 0
    const failure = Cause.failureOption(exit.cause)
    if (failure._tag === "Some" && ValidationError.isValidationError(failure.value)) return 2
    process.stderr.write(`acx: ${describeCause(exit.cause)}\n`)
    return failure._tag === "Some" && failure.value instanceof CliError && failure.value.reason === "InvalidArgument"
      ? 2
      : 1
  })
