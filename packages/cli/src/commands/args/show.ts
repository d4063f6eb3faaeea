/**
 * What `acx show` takes: its options and arguments, and the type of what a run is given
 * (`run/show.ts` reads that type from here, so the command and its run never import each other).
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import type * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { configDirOption, followSymlinksOption, fromOption, projectOption } from "../../internal/options.js"

/**
 * The `<id>` argument every per-session command takes.
 *
 * @since 0.1.0
 * @category arguments
 */
export const sessionIdArg = Args.text({ name: "id" }).pipe(
  Args.withDescription("The session id, or a unique prefix of it (at least 4 characters)")
)

const formatOption = Options.choice("format", ["markdown", "anthropic", "jsonl"]).pipe(
  Options.withAlias("f"),
  Options.withDescription(
    "markdown: the conversation for reading; anthropic: the messages acx stores in Acontext (JSON); jsonl: the entries"
  ),
  Options.withDefault("markdown" as const)
)

const thinkingOption = Options.boolean("no-thinking").pipe(
  Options.withDescription("Leave thinking blocks out (markdown and anthropic)")
)

const showIdArg = Args.text({ name: "id" }).pipe(
  Args.withDescription(
    "The session id, or a unique prefix of it (at least 4 characters); or a subagent's id (e.g. a881341) or prefix"
  )
)

const agentOption = Options.text("agent").pipe(
  Options.withDescription("Print this subagent of the session (its id, or a unique prefix)"),
  Options.optional
)

const uuidsOption = Options.boolean("uuids").pipe(
  Options.withDescription("End each message's heading with its uuid, the one acx fork --at takes (markdown)")
)

const noMaskOption = Options.boolean("no-mask").pipe(
  Options.withDescription(
    "Print secrets as the transcript holds them (by default API keys, tokens, private keys and NAME_SECRET=value are masked, as on the page)"
  )
)

/**
 * The options and arguments of `acx show`.
 *
 * @since 0.1.0
 * @category options
 */
export const config = {
  id: showIdArg,
  agent: agentOption,
  uuids: uuidsOption,
  format: formatOption,
  project: projectOption,
  configDir: configDirOption,
  from: fromOption,
  noThinking: thinkingOption,
  noMask: noMaskOption,
  followSymlinks: followSymlinksOption
}

/**
 * What `acx show` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type ShowArgs = Command.Command.ParseConfig<typeof config>
