/**
 * `acx ui [--port N] [--host H] [--config-dir D | --from TARGET] [--open]`: the local web page
 * (sessions, costs, memory; over a config directory or a session store). Prints one line with the URL, which carries a random token, and serves until Ctrl-C.
 * What it does: `run/ui.ts`.
 *
 * @since 0.1.0
 */
import type { CommandRun } from "../CommandSpec.js"
import { effectCommand } from "../internal/effectCommand.js"
import type { UiOptions } from "./args/ui.js"

/**
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<UiOptions> = effectCommand(async (options) => (await import("./run/ui.js")).run(options))
