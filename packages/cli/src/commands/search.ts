/**
 * `acx search QUERY [--project P] [--since D] [--role user|assistant|tool] [--limit N] [--json]
 * [--from TARGET]`: full-text search inside every conversation of a session store (the one
 * `acx sync` keeps by default), best matches first, secrets masked. What it does:
 * `run/search.ts`.
 *
 * @since 0.3.0
 */
import type { CommandRun } from "../CommandSpec.js"
import { effectCommand } from "../internal/effectCommand.js"
import { withProjectKey } from "../internal/options.js"
import type { SearchOptions } from "./args/search.js"

/**
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<SearchOptions> = effectCommand(async (options, io) =>
  (await import("./run/search.js")).run(withProjectKey(options, io))
)
