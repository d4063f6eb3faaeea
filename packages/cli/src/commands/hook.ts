/**
 * `acx hook <Event>`: what `acx memory install` has Claude Code run on its events (`@acx/memory`'s
 * `HookMain`: record the event, inject the memory at SessionStart). No Effect: Claude Code waits
 * for it on every tool call. Built, the table's entry requires its bundle (`dist/hook.cjs`, run
 * with V8's code cache) instead of this module; its command line is not parsed: a hook never
 * fails Claude Code.
 *
 * @since 0.6.0
 */
import * as path from "node:path"
import type { CommandRun } from "../CommandSpec.js"

/**
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<object> = async (_options, io) => {
  const { main } = await import("@acx/memory/HookMain")
  return main(io.argv, undefined, path.resolve(io.argv[1] ?? "acx")).catch(() => 0)
}
