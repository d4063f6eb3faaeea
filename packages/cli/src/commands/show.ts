/**
 * `acx show <id> [--agent <id>] [--format markdown|anthropic|jsonl] [--uuids]`: one session (or
 * one of its subagents: `--agent`, or a subagent's id on its own), as readable Markdown (full
 * history across compactions; `--uuids` adds each message's uuid for `acx fork --at`), as the
 * Anthropic messages acx would store, or as its JSONL entries re-serialised. What it does:
 * `run/show.ts`.
 *
 * @since 0.1.0
 */
import type { CommandRun } from "../CommandSpec.js"
import { effectCommand } from "../internal/effectCommand.js"
import { withProjectKey } from "../internal/options.js"
import type { ShowOptions } from "./args/show.js"

/**
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<ShowOptions> = effectCommand(async (options, io) =>
  (await import("./run/show.js")).run(withProjectKey(options, io))
)
