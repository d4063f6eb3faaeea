/**
 * A command whose work is an Effect program: the program's module is imported when the command
 * runs, and run by `runEffect.ts` (loaded with it), so the table and the commands that need no
 * Effect never load it.
 */
import type * as NodeContext from "@effect/platform-node/NodeContext"
import type * as Effect from "effect/Effect"
import type { CommandRun } from "../CommandSpec.js"

/** The command that runs the Effect `program` builds from its options (`program` imports its module). */
export const effectCommand = <Options>(
  program: (options: Options) => Promise<Effect.Effect<unknown, unknown, NodeContext.NodeContext>>
): CommandRun<Options> =>
async (options, io) => {
  const [effect, { runEffect }] = await Promise.all([program(options), import("./runEffect.js")])
  return runEffect(io, effect)
}
