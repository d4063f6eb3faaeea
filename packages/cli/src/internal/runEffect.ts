/**
 * Runs a command's Effect program and ends it as the runner expects: 0 when it succeeds, else its
 * failure as one `acx:` line on stderr and exit 2 (an invalid argument: `CliError`'s
 * `InvalidArgument`) or 1 (anything else). The Node services (file system, path, child processes,
 * terminal) and the command's io (`currentIo.ts`: the console, the config provider and the io
 * itself) are provided; logs below Warning are dropped. Loaded only by commands that need Effect.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { CliError, describeCause } from "../CliError.js"
import type { CommandIo } from "../CommandIo.js"
import * as CurrentIo from "./currentIo.js"

/** The exit code of `exit`, its failure written to `io`'s stderr. */
export const exitCode = (exit: Exit.Exit<unknown, unknown>, io: CommandIo): number => {
  if (Exit.isSuccess(exit)) return 0
  io.stderr(`acx: ${describeCause(exit.cause)}\n`)
  const failure = Cause.failureOption(exit.cause)
  return failure._tag === "Some" && failure.value instanceof CliError && failure.value.reason === "InvalidArgument"
    ? 2
    : 1
}

/** Runs `program` with the Node services and `io`; resolves to its exit code (never rejects). */
export const runEffect = <A, E>(
  io: CommandIo,
  program: Effect.Effect<A, E, NodeContext.NodeContext | CurrentIo.CurrentIo>
): Promise<number> =>
  Effect.runPromiseExit(
    program.pipe(
      Effect.provide(
        Layer.mergeAll(NodeContext.layer, CurrentIo.layer(io), Logger.minimumLogLevel(LogLevel.Warning))
      )
    )
  ).then((exit) => exitCode(exit, io))
