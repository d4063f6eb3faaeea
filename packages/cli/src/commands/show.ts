/**
 * `acx show <id> [--agent <id>] [--format markdown|anthropic|jsonl] [--uuids]`: one session (or
 * one of its subagents: `--agent`, or a subagent's id on its own), as readable Markdown (full
 * history across compactions; `--uuids` adds each message's uuid for `acx fork --at`), as the
 * Anthropic messages acx would store, or as its JSONL entries re-serialised. What it does:
 * `run/show.ts`.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { lazyHandler } from "../internal/lazyHandler.js"
import { configDirOption, followSymlinksOption, projectOption } from "../internal/options.js"

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

const config = {
  id: showIdArg,
  agent: agentOption,
  uuids: uuidsOption,
  format: formatOption,
  project: projectOption,
  configDir: configDirOption,
  noThinking: thinkingOption,
  followSymlinks: followSymlinksOption
}

/**
 * What `acx show` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type ShowArgs = Command.Command.ParseConfig<typeof config>

/**
 * @since 0.1.0
 * @category commands
 */
export const show = Command.make("show", config, lazyHandler(() => import("./run/show.js"), (m) => m.run)).pipe(
  Command.withDescription(
    "Print one session (or one of its subagents) as Markdown, Anthropic messages (JSON) or JSONL entries"
  )
)
