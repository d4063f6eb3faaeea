/**
 * `acx push <id> [--base-url U] [--new-session]`: one past session into Acontext (API key from
 * `ACONTEXT_API_KEY`), converted with the same rules as live `ClaudeAgentStorage`. Resumable: a
 * second push (or one after an interrupted push) stores only the messages not there yet. Exactly
 * once: a store whose answer was lost is checked against the session's tail, never repeated
 * blindly. `--new-session` pushes into a fresh Acontext session id (printed), for a session
 * that holds something else in Acontext. What it does: `run/push.ts`.
 *
 * @since 0.1.0
 */
import type { CommandRun } from "../CommandSpec.js"
import { effectCommand } from "../internal/effectCommand.js"
import { withProjectKey } from "../internal/options.js"
import type { PushOptions } from "./args/push.js"

/**
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<PushOptions> = effectCommand(async (options, io) =>
  (await import("./run/push.js")).run(withProjectKey(options, io))
)
