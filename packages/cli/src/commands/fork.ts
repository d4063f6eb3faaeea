/**
 * `acx fork <id> [--at UUID] [--title T]`: a new session in the same project holding the
 * conversation up to a chosen message, with fresh uuids and a remapped parent chain (as the
 * SDK's `forkSession` does), resumable with `claude --resume <new id>`. What it does:
 * `run/fork.ts`.
 *
 * @since 0.1.0
 */
import type { CommandRun } from "../CommandSpec.js"
import { effectCommand } from "../internal/effectCommand.js"
import { withProjectKey } from "../internal/options.js"
import type { ForkOptions } from "./args/fork.js"

/**
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<ForkOptions> = effectCommand(async (options, io) =>
  (await import("./run/fork.js")).run(withProjectKey(options, io))
)
