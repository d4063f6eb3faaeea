/**
 * A command whose work is an Effect program: the program's module is imported when the command
 * runs, and run by `runEffect.ts` (loaded with it), so the table and the commands that need no
 * Effect never load it.
 */
import type * as NodeContext from "@effect/platform-node/NodeContext"
import type * as Effect from "effect/Effect"
import type { CommandIo } from "../CommandIo.js"
import type { CommandRun } from "../CommandSpec.js"
import type { CurrentIo } from "./currentIo.js"

/**
 * The command that runs the Effect `program` builds from its options and io (`program` imports
 * its module); the program is given the io as `CurrentIo`, its console and its config.
 */
export const effectCommand = <Options>(
  program: (
    options: Options,
    io: CommandIo
  ) => Promise<Effect.Effect<unknown, unknown, NodeContext.NodeContext | CurrentIo>>
): CommandRun<Options> =>
async (options, io) => {
  const [effect, { runEffect }] = await Promise.all([program(options, io), import("./runEffect.js")])
  return runEffect(io, effect)
}
