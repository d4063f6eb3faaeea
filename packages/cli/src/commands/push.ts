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
import * as Command from "@effect/cli/Command"
import { lazyHandler } from "../internal/lazyHandler.js"
import * as PushOptions from "./args/push.js"

/**
 * @since 0.1.0
 * @category commands
 */
export const push = Command.make("push", PushOptions.config, lazyHandler(() => import("./run/push.js"), (m) => m.run))
  .pipe(
    Command.withDescription("Push one session to Acontext (resumable; ACONTEXT_API_KEY)")
  )
