/**
 * `acx fork <id> [--at UUID] [--title T]`: a new session in the same project holding the
 * conversation up to a chosen message, with fresh uuids and a remapped parent chain (as the
 * SDK's `forkSession` does), resumable with `claude --resume <new id>`. What it does:
 * `run/fork.ts`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { lazyHandler } from "../internal/lazyHandler.js"
import { configDirOption, followSymlinksOption, jsonOption, projectOption } from "../internal/options.js"
import { sessionIdArg } from "./show.js"

const atOption = Options.text("at").pipe(
  Options.withDescription("The uuid of the last message to keep (default: the whole conversation)"),
  Options.optional
)

const titleOption = Options.text("title").pipe(
  Options.withDescription("The fork's title (default: the original title + \" (fork)\")"),
  Options.optional
)

const config = {
  id: sessionIdArg,
  at: atOption,
  title: titleOption,
  project: projectOption,
  configDir: configDirOption,
  json: jsonOption,
  followSymlinks: followSymlinksOption
}

/**
 * What `acx fork` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type ForkArgs = Command.Command.ParseConfig<typeof config>

/**
 * @since 0.1.0
 * @category commands
 */
export const fork = Command.make("fork", config, lazyHandler(() => import("./run/fork.js"), (m) => m.run)).pipe(
  Command.withDescription("Fork a session up to a message into a new session (fresh uuids, remapped chain)")
)
