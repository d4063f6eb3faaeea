/**
 * The `acx` command line: the root command, its subcommands, and `run`, which maps every ending
 * to an exit code (0 ok, 1 a command failed, 2 bad usage or an invalid argument) with failures printed as one line,
 * and `--help`, plain text unless stdout is a terminal.
 *
 * @since 0.1.0
 */
import * as BuiltInOptions from "@effect/cli/BuiltInOptions"
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as CommandDescriptor from "@effect/cli/CommandDescriptor"
import * as CommandDirective from "@effect/cli/CommandDirective"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Usage from "@effect/cli/Usage"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import { CliError, describeCause } from "./CliError.js"
import { chat } from "./commands/chat.js"
import { demo } from "./commands/demo.js"
import { fork } from "./commands/fork.js"
import { hub } from "./commands/hub.js"
import { importCommand } from "./commands/import.js"
import { memory } from "./commands/memory.js"
import { push } from "./commands/push.js"
import { search } from "./commands/search.js"
import { sessions } from "./commands/sessions.js"
import { show } from "./commands/show.js"
import { stats } from "./commands/stats.js"
import { statusline } from "./commands/statusline.js"
import { sync } from "./commands/sync.js"
import { ui } from "./commands/ui.js"
import { commandPath, commandTree, unknownOption } from "./internal/commandTree.js"
import { helpPage, paragraphsText, renderHelp, useColor } from "./internal/help.js"
import { writeStdout } from "./internal/stdout.js"
import { describeUsageError } from "./internal/usageError.js"
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
    "Read, import and push Claude Code sessions: list, show, stats, search inside them, import into SQLite/Postgres, push to Acontext, fork; chat on a warm, resumable Claude Code process; a memory for Claude Code across sessions; a local web page for all of it"
  ),
  Command.withSubcommands([
    sessions,
    show,
    stats,
    search,
    importCommand,
    sync,
    hub,
    push,
    fork,
    chat,
    memory,
    statusline,
    ui,
    demo
  ])
)

// @effect/cli's own runner still answers the built-in options acx does not render itself
// (--version, --completions, --wizard, --log-level); building it also registers the descriptor.
const cli = Command.run(acx, { name: "acx", version: VERSION })

const config = CliConfig.make({ showBuiltIns: false })

const tree = commandTree(acx.descriptor)

const printHelp = (args: ReadonlyArray<string>, usage: Usage.Usage, help: HelpDoc.HelpDoc): Effect.Effect<void> =>
  Effect.suspend(() => {
    const path = commandPath(tree, args)
    const page = helpPage({
      version: VERSION,
      path: path.map((node) => node.name),
      usage: Usage.enumerate(usage, config),
      help,
      command: path[path.length - 1]!
    })
    const text = renderHelp(page, useColor(process.env, process.stdout.isTTY === true))
    return writeStdout([text.endsWith("\n") ? text : `${text}\n`])
  })

// What `Command.run` does, with acx's help page and usage errors: parse, then answer --help with
// the tidied page, or run the command (a command without a handler of its own asks for help).
const main = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const unknown = unknownOption(tree, args)
    if (unknown !== undefined) {
      return yield* Effect.fail(ValidationError.invalidValue(HelpDoc.p(`Received unknown argument: '${unknown}'`)))
    }
    const directive = yield* CommandDescriptor.parse(acx.descriptor, ["acx", ...args], config)
    if (CommandDirective.isBuiltIn(directive)) {
      return BuiltInOptions.isShowHelp(directive.option)
        ? yield* printHelp(args, directive.option.usage, directive.option.helpDoc)
        : yield* cli(["node", "acx", ...args])
    }
    const [leftover] = directive.leftover
    if (leftover !== undefined) {
      return yield* Effect.fail(ValidationError.invalidValue(HelpDoc.p(`Received unknown argument: '${leftover}'`)))
    }
    yield* acx.transform(acx.handler(directive.value), directive.value).pipe(
      // not in the handler's error type: @effect/cli fails a command without a handler with it
      Effect.catchSome((failure: unknown) =>
        ValidationError.isValidationError(failure) && ValidationError.isHelpRequested(failure)
          ? Option.some(
            printHelp(
              args,
              CommandDescriptor.getUsage(failure.command),
              CommandDescriptor.getHelp(failure.command, config)
            )
          )
          : Option.none()
      )
    )
  })

/**
 * Runs `acx` on `argv` (as `process.argv`: node and script first) and resolves to the exit code.
 * Never rejects: failures are printed to stderr as one line (`acx: …`), bad usage too (exit 2).
 *
 * @since 0.1.0
 * @category running
 */
export const run = (argv: ReadonlyArray<string>): Promise<number> => {
  const args = argv.slice(2)
  return Effect.runPromiseExit(
    main(args).pipe(
      Effect.provide(
        Layer.mergeAll(
          NodeContext.layer,
          CliConfig.layer(config),
          Logger.minimumLogLevel(LogLevel.Warning)
        )
      )
    )
  ).then((exit) => {
    if (Exit.isSuccess(exit)) return 0
    const failure = Cause.failureOption(exit.cause)
    if (failure._tag === "Some" && ValidationError.isValidationError(failure.value)) {
      const message = paragraphsText(failure.value.error)
      process.stderr.write(`acx: ${describeUsageError(message, args, tree)}\n`)
      return 2
    }
    process.stderr.write(`acx: ${describeCause(exit.cause)}\n`)
    return failure._tag === "Some" && failure.value instanceof CliError && failure.value.reason === "InvalidArgument"
      ? 2
      : 1
  })
}
