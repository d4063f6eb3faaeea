/**
 * What `acx push` takes: its options and arguments, and the type of what a run is given
 * (`run/push.ts` reads that type from here, so the command and its run never import each other).
 *
 * @since 0.1.0
 */
import * as AcontextDefaults from "@acx/storage/AcontextDefaults"
import type * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { configDirOption, followSymlinksOption, jsonOption, projectOption } from "../../internal/options.js"
import { sessionIdArg } from "./show.js"

const baseUrlOption = Options.text("base-url").pipe(
  Options.withDescription(
    `Acontext API base URL (default: $ACONTEXT_BASE_URL, else ${AcontextDefaults.DEFAULT_BASE_URL})`
  ),
  Options.optional
)

const thinkingOption = Options.boolean("thinking").pipe(
  Options.withDescription("Store thinking blocks too (as text)")
)

const sidechainsOption = Options.boolean("include-sidechains").pipe(
  Options.withDescription("Also push inline sidechain (old-layout subagent) messages")
)

const newSessionOption = Options.boolean("new-session").pipe(
  Options.withDescription(
    "Push into a fresh Acontext session id (printed) instead of the Claude session's own, e.g. when that one holds other messages"
  )
)

/**
 * The options and arguments of `acx push`.
 *
 * @since 0.1.0
 * @category options
 */
export const config = {
  id: sessionIdArg,
  baseUrl: baseUrlOption,
  project: projectOption,
  configDir: configDirOption,
  thinking: thinkingOption,
  includeSidechains: sidechainsOption,
  newSession: newSessionOption,
  json: jsonOption,
  followSymlinks: followSymlinksOption
}

/**
 * What `acx push` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type PushArgs = Command.Command.ParseConfig<typeof config>
