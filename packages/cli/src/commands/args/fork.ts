/**
 * What `acx fork` takes: its options and arguments, and the type of what a run is given
 * (`run/fork.ts` reads that type from here, so the command and its run never import each other).
 *
 * @since 0.1.0
 */
import type * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { configDirOption, followSymlinksOption, fromOption, jsonOption, projectOption } from "../../internal/options.js"
import { sessionIdArg } from "./show.js"

const atOption = Options.text("at").pipe(
  Options.withDescription("The uuid of the last message to keep (default: the whole conversation)"),
  Options.optional
)

const titleOption = Options.text("title").pipe(
  Options.withDescription("The fork's title (default: the original title + \" (fork)\")"),
  Options.optional
)

/**
 * The options and arguments of `acx fork`.
 *
 * @since 0.1.0
 * @category options
 */
export const config = {
  id: sessionIdArg,
  at: atOption,
  title: titleOption,
  project: projectOption,
  configDir: configDirOption,
  from: fromOption,
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
