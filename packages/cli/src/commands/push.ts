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
import * as AcontextDefaults from "@acx/storage/AcontextDefaults"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { lazyHandler } from "../internal/lazyHandler.js"
import { configDirOption, followSymlinksOption, jsonOption, projectOption } from "../internal/options.js"
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

const config = {
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

/**
 * @since 0.1.0
 * @category commands
 */
export const push = Command.make("push", config, lazyHandler(() => import("./run/push.js"), (m) => m.run)).pipe(
  Command.withDescription("Push one session to Acontext (resumable; ACONTEXT_API_KEY)")
)
