/**
 * What `acx memory` takes: its options and arguments, and the type of what a run is given
 * (`run/memory.ts` reads that type from here, so the command and its run never import each other).
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import type * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Option from "effect/Option"
import * as path from "node:path"
import { configDirOption, fromOption, jsonOption, storeFromOption } from "../../internal/options.js"

/**
 * `-p/--project DIR`: a project is the absolute path Claude Code ran in (a relative one is
 * resolved against the current directory).
 *
 * @since 0.1.0
 * @category options
 */
export const memoryProjectOption = Options.text("project").pipe(
  Options.withAlias("p"),
  Options.withDescription("Only this project: the directory Claude Code ran in (absolute, or relative to here)"),
  Options.optional,
  Options.map(Option.map((value) => path.resolve(value)))
)

/**
 * The options and arguments of `acx memory status`.
 *
 * @since 0.1.0
 * @category options
 */
export const statusConfig = { json: jsonOption }

/**
 * What `acx memory status` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type StatusArgs = Command.Command.ParseConfig<typeof statusConfig>

/**
 * The options and arguments of `acx memory search`.
 *
 * @since 0.1.0
 * @category options
 */
export const searchConfig = {
  query: Args.text({ name: "query" }).pipe(Args.withDescription("Words to search for (full-text)")),
  project: memoryProjectOption,
  type: Options.text("type").pipe(
    Options.withDescription("Only this observation type (decision, bugfix, feature, …), or summary, or prompt"),
    Options.optional
  ),
  since: Options.text("since").pipe(Options.withDescription("Only from this date on (YYYY-MM-DD)"), Options.optional),
  limit: Options.integer("limit").pipe(Options.withDefault(20), Options.withDescription("At most this many")),
  json: jsonOption
}

/**
 * What `acx memory search` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type SearchArgs = Command.Command.ParseConfig<typeof searchConfig>

/**
 * The options and arguments of `acx memory show`.
 *
 * @since 0.1.0
 * @category options
 */
export const showConfig = {
  id: Args.text({ name: "id" }).pipe(Args.withDescription("An observation, summary or prompt id: O12, S3 or P7")),
  json: jsonOption
}

/**
 * What `acx memory show` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type ShowArgs = Command.Command.ParseConfig<typeof showConfig>

/**
 * The options and arguments of `acx memory timeline`.
 *
 * @since 0.1.0
 * @category options
 */
export const timelineConfig = {
  id: Args.text({ name: "id" }).pipe(Args.withDescription("The entry to center on: O12, S3 or P7")),
  window: Options.integer("window").pipe(Options.withDefault(5), Options.withDescription("Entries before and after")),
  json: jsonOption
}

/**
 * What `acx memory timeline` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type TimelineArgs = Command.Command.ParseConfig<typeof timelineConfig>

/**
 * The options and arguments of `acx memory context`.
 *
 * @since 0.1.0
 * @category options
 */
export const contextConfig = { project: memoryProjectOption }

/**
 * What `acx memory context` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type ContextArgs = Command.Command.ParseConfig<typeof contextConfig>

/**
 * The options and arguments of `acx memory forget`.
 *
 * @since 0.1.0
 * @category options
 */
export const forgetConfig = {
  ids: Args.text({ name: "id" }).pipe(
    Args.withDescription("Observations or summaries to forget (O12, S3): hidden, for the whole team when shared"),
    Args.repeated
  ),
  session: Options.text("session").pipe(Options.withDescription("A Claude Code session id"), Options.optional),
  project: memoryProjectOption,
  before: Options.text("before").pipe(
    Options.withDescription("Everything before this date (YYYY-MM-DD)"),
    Options.optional
  )
}

/**
 * What `acx memory forget` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type ForgetArgs = Command.Command.ParseConfig<typeof forgetConfig>

/**
 * The options and arguments of `acx memory restore`.
 *
 * @since 0.1.0
 * @category options
 */
export const restoreConfig = {
  file: Args.text({ name: "file" }).pipe(Args.withDescription("The backup file to restore"))
}

/**
 * What `acx memory restore` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type RestoreArgs = Command.Command.ParseConfig<typeof restoreConfig>

/**
 * `--scope user|project` of the install commands (`acx memory install`, `acx sync install`).
 *
 * @since 0.3.0
 * @category options
 */
export const scopeOption = Options.choice("scope", ["user", "project"]).pipe(
  Options.withDescription(
    "user: every project (the Claude config dir's settings.json); project: this one (.claude/settings.json)"
  )
)

/**
 * The options and arguments of `acx memory install`.
 *
 * @since 0.1.0
 * @category options
 */
export const installConfig = {
  scope: scopeOption.pipe(Options.withDefault("user" as const)),
  project: memoryProjectOption,
  sessionsFrom: Options.text("sessions-from").pipe(
    Options.withDescription(
      "The session store the MCP server's search_sessions and get_session_turns read (acx memory mcp --from; default: the one acx sync fills)"
    ),
    Options.optional
  ),
  team: Options.text("team").pipe(
    Options.withDescription(
      "Share observations and summaries with teammates through this Postgres (postgres://…[?schema=NAME], default schema acx_team); hooks stay local"
    ),
    Options.optional
  ),
  user: Options.text("user").pipe(
    Options.withDescription("With --team: the author marked on what you share (default: the OS user)"),
    Options.optional
  ),
  machine: Options.text("machine").pipe(
    Options.withDescription("With --team: the machine marked on what you share (default: the hostname)"),
    Options.optional
  )
}

/**
 * What `acx memory install` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type InstallArgs = Command.Command.ParseConfig<typeof installConfig>

/**
 * The options of `acx memory mcp`.
 *
 * @since 0.3.0
 * @category options
 */
export const mcpConfig = { from: storeFromOption }

/**
 * What `acx memory mcp` was given.
 *
 * @since 0.3.0
 * @category models
 */
export type McpArgs = Command.Command.ParseConfig<typeof mcpConfig>

/**
 * The options and arguments of `acx memory uninstall`.
 *
 * @since 0.1.0
 * @category options
 */
export const uninstallConfig = { scope: scopeOption.pipe(Options.optional), project: memoryProjectOption }

/**
 * What `acx memory uninstall` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type UninstallArgs = Command.Command.ParseConfig<typeof uninstallConfig>

/**
 * The options of `acx memory backfill`.
 *
 * @since 0.3.0
 * @category options
 */
export const backfillConfig = {
  configDir: configDirOption,
  from: fromOption,
  project: memoryProjectOption,
  since: Options.text("since").pipe(
    Options.withDescription("Only sessions active from this date on (YYYY-MM-DD or an ISO time)"),
    Options.optional
  ),
  mode: Options.choice("mode", ["local", "model"]).pipe(
    Options.withDefault("local" as const),
    Options.withDescription(
      "local: deterministic, free, no model; model: the observer, within the daily budget"
    )
  ),
  yes: Options.boolean("yes").pipe(Options.withDescription("Model mode: start without asking to confirm the estimate")),
  dryRun: Options.boolean("dry-run").pipe(
    Options.withDescription("Count the sessions and events (and the estimate); store nothing")
  ),
  json: jsonOption
}

/**
 * What `acx memory backfill` was given.
 *
 * @since 0.3.0
 * @category models
 */
export type BackfillArgs = Command.Command.ParseConfig<typeof backfillConfig>

/**
 * The options of `acx memory sync`.
 *
 * @since 0.4.0
 * @category options
 */
export const syncConfig = { json: jsonOption }

/**
 * What `acx memory sync` was given.
 *
 * @since 0.4.0
 * @category models
 */
export type SyncArgs = Command.Command.ParseConfig<typeof syncConfig>
