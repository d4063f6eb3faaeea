/**
 * `acx show <id> [--format markdown|anthropic|jsonl]`: one session, as readable Markdown (full
 * history across compactions), as the Anthropic messages acx would store, or as its JSONL
 * entries re-serialised. What it does: `run/show.ts`.
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

const config = {
  id: sessionIdArg,
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
  Command.withDescription("Print one session as Markdown, Anthropic messages (JSON) or JSONL entries")
)
