/**
 * `acx demo`: the whole toolkit end to end on a machine with nothing set up. Where the Claude
 * Code binary is installed (see `ClaudeBinary`), the real CLI runs a session offline against a
 * model double: two turns and a resumed third, commands really executed in a scratch project,
 * its transcript written to a temporary config directory. Elsewhere (or with `--generated`) a
 * realistic generated session (prompt, thinking, tool turns, a subagent, a compaction) is
 * written there with `ClaudeProjects`, and the demo says why. Either session is then imported
 * into the embedded SQLite SessionStore, counted, saved through `ClaudeAgentStorage` into an
 * in-process Acontext emulator on 127.0.0.1 (the live SDK messages of the real session; those a
 * live `query()` would have streamed for the generated one) and read back; every step prints
 * what it did. What it does: `run/demo.ts`.
 *
 * @since 0.1.0
 */
import type { CommandRun } from "../CommandSpec.js"
import { effectCommand } from "../internal/effectCommand.js"
import type { DemoOptions } from "./args/demo.js"

/**
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<DemoOptions> = effectCommand(async (options) =>
  (await import("./run/demo.js")).run(options)
)
