/**
 * What `acx sessions` takes: its options and arguments, and the type of what a run is given
 * (`run/sessions.ts` reads that type from here, so the command and its run never import each other).
 *
 * @since 0.1.0
 */
import type * as Command from "@effect/cli/Command"
import { configDirOption, followSymlinksOption, fromOption, jsonOption, projectOption } from "../../internal/options.js"

/**
 * The options and arguments of `acx sessions`.
 *
 * @since 0.1.0
 * @category options
 */
export const config = {
  configDir: configDirOption,
  from: fromOption,
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
