/**
 * `acx memory …`: the memory Claude Code gets through acx's hooks — `worker` (what hooks start),
 * `status`, `search`, `show`, `timeline`, `context` (what SessionStart injects), `retry`,
 * `forget`, `backup`, `restore`, `install` and `uninstall`. Everything lives under `$ACX_HOME`
 * (default `~/.acx`); a project is the absolute directory Claude Code ran in. What they do:
 * `run/memory.ts`, and `run/memoryWorker.ts` and `run/memoryMcp.ts` for the two that load a
 * model client or an MCP server.
 *
 * @since 0.1.0
 */
import * as MemoryConfig from "@acx/memory/MemoryConfig"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Option from "effect/Option"
import * as path from "node:path"
import { lazyHandler } from "../internal/lazyHandler.js"
import { jsonOption } from "../internal/options.js"
import { memoryDemo } from "./memoryDemo.js"

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

const admin = () => import("./run/memory.js")

const worker = Command.make("worker", {}, lazyHandler(() => import("./run/memoryWorker.js"), (m) => m.run)).pipe(
  Command.withDescription(
    "Turn queued hook events into observations and summaries, then exit when idle (hooks start it)"
  )
)

const statusConfig = { json: jsonOption }

/**
 * What `acx memory status` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type StatusArgs = Command.Command.ParseConfig<typeof statusConfig>

const statusCommand = Command.make("status", statusConfig, lazyHandler(admin, (m) => m.status)).pipe(
  Command.withDescription("Queue, worker, today's spend against the budget, failures, the settings in force")
)

const searchConfig = {
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

const search = Command.make("search", searchConfig, lazyHandler(admin, (m) => m.search)).pipe(
  Command.withDescription("Full-text search of observations, summaries and prompts, best matches first")
)

const showConfig = {
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

const show = Command.make("show", showConfig, lazyHandler(admin, (m) => m.show)).pipe(
  Command.withDescription("One observation, summary or prompt in full")
)

const timelineConfig = {
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

const timeline = Command.make("timeline", timelineConfig, lazyHandler(admin, (m) => m.timeline)).pipe(
  Command.withDescription("What happened in the project around an entry")
)

const contextConfig = { project: memoryProjectOption }

/**
 * What `acx memory context` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type ContextArgs = Command.Command.ParseConfig<typeof contextConfig>

const context = Command.make("context", contextConfig, lazyHandler(admin, (m) => m.context)).pipe(
  Command.withDescription(
    `Print exactly what SessionStart injects for a project (default: here), within contextTokens (default ${MemoryConfig.defaults.contextTokens})`
  )
)

const retry = Command.make("retry", {}, lazyHandler(admin, (m) => m.retry)).pipe(
  Command.withDescription("Queue the failed events again")
)

const forgetConfig = {
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

const forget = Command.make("forget", forgetConfig, lazyHandler(admin, (m) => m.forget)).pipe(
  Command.withDescription("Delete a session's, a project's or everything before a date's memory")
)

const backup = Command.make("backup", {}, lazyHandler(admin, (m) => m.backup)).pipe(
  Command.withDescription("Back the memory database up now (online; the worker also does it daily)")
)

const restoreConfig = {
  file: Args.text({ name: "file" }).pipe(Args.withDescription("The backup file to restore"))
}

/**
 * What `acx memory restore` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type RestoreArgs = Command.Command.ParseConfig<typeof restoreConfig>

const restore = Command.make("restore", restoreConfig, lazyHandler(admin, (m) => m.restore)).pipe(
  Command.withDescription("Replace the memory database with a backup (the current one is kept first)")
)

const scopeOption = Options.choice("scope", ["user", "project"]).pipe(
  Options.withDescription(
    "user: every project (the Claude config dir's settings.json); project: this one (.claude/settings.json)"
  )
)

const installConfig = { scope: scopeOption.pipe(Options.withDefault("user" as const)), project: memoryProjectOption }

/**
 * What `acx memory install` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type InstallArgs = Command.Command.ParseConfig<typeof installConfig>

const install = Command.make("install", installConfig, lazyHandler(admin, (m) => m.install)).pipe(
  Command.withDescription(
    "Add acx's memory hooks to Claude Code's settings and its MCP server where Claude Code reads them (backups first; twice changes nothing)"
  )
)

const uninstallConfig = { scope: scopeOption.pipe(Options.optional), project: memoryProjectOption }

/**
 * What `acx memory uninstall` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type UninstallArgs = Command.Command.ParseConfig<typeof uninstallConfig>

const uninstall = Command.make("uninstall", uninstallConfig, lazyHandler(admin, (m) => m.uninstall)).pipe(
  Command.withDescription("Remove exactly what acx memory install added (backups first)")
)

const mcp = Command.make("mcp", {}, lazyHandler(() => import("./run/memoryMcp.js"), (m) => m.run)).pipe(
  Command.withDescription(
    "The memory as an MCP server on stdio (search, get_observations, timeline) for Claude Code: acx memory install registers it"
  )
)

/**
 * @since 0.1.0
 * @category commands
 */
export const memory = Command.make("memory").pipe(
  Command.withDescription(
    "Claude Code's memory across sessions: hooks capture, a model distils, the next session starts with it"
  ),
  Command.withSubcommands([
    statusCommand,
    search,
    show,
    timeline,
    context,
    retry,
    forget,
    backup,
    restore,
    install,
    uninstall,
    mcp,
    memoryDemo,
    worker
  ])
)
