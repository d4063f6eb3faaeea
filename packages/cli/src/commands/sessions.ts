/**
 * `acx sessions [--project P] [--json]`: the sessions of a Claude Code config directory, last
 * active first, with title (or first prompt), size, branch and cwd, read from the head and tail of each
 * transcript and cached under `$ACX_HOME/cache` (`@acx/claude-code/SessionIndex`). What it does:
 * `run/sessions.ts`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import { lazyHandler } from "../internal/lazyHandler.js"
import * as SessionsOptions from "./args/sessions.js"

/**
 * @since 0.1.0
 * @category commands
 */
export const sessions = Command.make(
  "sessions",
  SessionsOptions.config,
  lazyHandler(() => import("./run/sessions.js"), (m) => m.run)
)
  .pipe(Command.withDescription("List the sessions of a Claude Code config directory, last active first"))
