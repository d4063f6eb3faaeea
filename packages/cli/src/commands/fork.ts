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

/**
 * What `acx fork` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface ForkOptions {
  readonly id: string
  readonly at: string | undefined
  readonly title: string | undefined
  readonly project: string | undefined
  readonly configDir: string | undefined
  readonly from: string | undefined
  readonly json: boolean
  readonly followSymlinks: boolean
}

/**
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<ForkOptions> = effectCommand(async (options, io) =>
  (await import("./run/fork.js")).run(withProjectKey(options, io))
)
