/**
 * `acx sessions [--project P] [--json]`: the sessions of a Claude Code config directory, newest
 * first, with title (or first prompt), size, branch and cwd, read from the head and tail of each
 * transcript and cached under `$ACX_HOME/cache` (`@acx/claude-code/SessionIndex`). What it does:
 * `run/sessions.ts`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import { lazyHandler } from "../internal/lazyHandler.js"
import { configDirOption, followSymlinksOption, jsonOption, projectOption } from "../internal/options.js"

const config = {
  configDir: configDirOption,
  project: projectOption,
  json: jsonOption,
  followSymlinks: followSymlinksOption
}

/**
 * What `acx sessions` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type SessionsArgs = Command.Command.ParseConfig<typeof config>

/**
 * @since 0.1.0
 * @category commands
 */
export const sessions = Command.make("sessions", config, lazyHandler(() => import("./run/sessions.js"), (m) => m.run))
  .pipe(Command.withDescription("List the sessions of a Claude Code config directory, newest first"))
