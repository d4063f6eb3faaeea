/**
 * The `acx` command line: reads it against the command table (`CommandTable.ts`), answers
 * `--help` and `--version`, and runs the command it names, whose module is imported only then.
 * `run` maps every ending to an exit code: 0 ok, 1 a command failed, 2 bad usage, each failure
 * one `acx:` line on stderr. No Effect here: a command that needs it loads it.
 *
 * @since 0.1.0
 */
import * as TerminalText from "@acx/convert/TerminalText"
import { type CommandIo, processIo } from "./CommandIo.js"
import { UsageFailure } from "./CommandSpec.js"
import { acx } from "./CommandTable.js"
import { requireBundled } from "./internal/bundled.js"
import { commandPath, HELP, parseCommandLine } from "./internal/commandLine.js"
import { helpPage, useColor } from "./internal/help.js"
import { VERSION as version } from "./internal/version.js"

/**
 * The version `acx --version` prints.
 *
 * @since 0.1.0
 */
export const VERSION = version

/**
 * Whether the command `args` name has a bundle of its own beside the built entry (`hook.cjs`,
 * `statusline.cjs`: what Claude Code runs within a deadline), now required: it reads the command
 * line itself, answers its own bad ones (a hook or statusline never fails Claude Code on them) and
 * ends the process. Not for `--help`, which the table answers. From the sources there is none.
 */
const handedToBundle = (args: ReadonlyArray<string>): boolean => {
  const { path, rest } = commandPath(acx, args)
  const { bundle } = path[path.length - 1]!
  return bundle !== undefined && !rest.some((word) => HELP.has(word)) &&
    requireBundled(bundle, import.meta.url) !== undefined
}

// by name: a command's module is a bundle of its own, with its own copy of the class
const isUsageFailure = (error: unknown): boolean =>
  error instanceof UsageFailure || (error instanceof Error && error.name === "UsageFailure")

const failureLine = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error)
  const line = TerminalText.line(message.split("\n").find((part) => part.trim() !== "") ?? message)
  return isUsageFailure(error) ? line : `internal error: ${line}`
}

/**
 * Runs `acx` on `argv` (as `process.argv`: node and script first) with `io` (default: the
 * process's own) and resolves to the exit code. Never rejects: failures are printed to stderr as
 * one line (`acx: …`), bad usage too (exit 2).
 *
 * @since 0.1.0
 * @category running
 */
export const run = async (argv: ReadonlyArray<string>, io: CommandIo = processIo(argv)): Promise<number> => {
  try {
    // the bundle ends the process: this promise never settles
    if (handedToBundle(argv.slice(2))) return await new Promise<number>(() => undefined)
    const request = parseCommandLine(acx, argv.slice(2), io.cwd)
    switch (request._tag) {
      case "Version":
        await io.stdout(`${VERSION}\n`)
        return 0
      case "Help":
        await io.stdout(helpPage(request.path, VERSION, useColor(io.env, io.isTTY)))
        return 0
      case "Run":
        return await request.path[request.path.length - 1]!.load!().then((run) => run(request.options, io))
    }
  } catch (error) {
    io.stderr(`acx: ${failureLine(error)}\n`)
    return isUsageFailure(error) ? 2 : 1
  }
}
