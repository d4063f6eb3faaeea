/**
 * `acx memory …`: the memory Claude Code gets through acx's hooks — `worker` (what hooks start),
 * `status`, `search`, `show`, `timeline`, `context` (what SessionStart injects), `retry`,
 * `forget`, `backup`, `restore`, `install`, `uninstall` and `backfill` (past sessions). Everything lives under `$ACX_HOME`
 * (default `~/.acx`); a project is the absolute directory Claude Code ran in. What they do:
 * `run/memory.ts`, and `run/memoryWorker.ts` and `run/memoryMcp.ts` for the two that load a
 * model client or an MCP server.
 *
 * @since 0.1.0
 */
import * as MemoryConfig from "@acx/memory/MemoryConfig"
import * as Command from "@effect/cli/Command"
import { lazyHandler } from "../internal/lazyHandler.js"
import * as MemoryOptions from "./args/memory.js"
import { memoryDemo } from "./memoryDemo.js"

const admin = () => import("./run/memory.js")

const worker = Command.make("worker", {}, lazyHandler(() => import("./run/memoryWorker.js"), (m) => m.run)).pipe(
  Command.withDescription(
    "Turn queued hook events into observations and summaries, then exit when idle (hooks start it)"
  )
)

const statusCommand = Command.make("status", MemoryOptions.statusConfig, lazyHandler(admin, (m) => m.status)).pipe(
  Command.withDescription("Queue, worker, today's spend against the budget, failures, the settings in force")
)

const search = Command.make("search", MemoryOptions.searchConfig, lazyHandler(admin, (m) => m.search)).pipe(
  Command.withDescription("Full-text search of observations, summaries and prompts, best matches first")
)

const show = Command.make("show", MemoryOptions.showConfig, lazyHandler(admin, (m) => m.show)).pipe(
  Command.withDescription("One observation, summary or prompt in full")
)

const timeline = Command.make("timeline", MemoryOptions.timelineConfig, lazyHandler(admin, (m) => m.timeline)).pipe(
  Command.withDescription("What happened in the project around an entry")
)

const context = Command.make("context", MemoryOptions.contextConfig, lazyHandler(admin, (m) => m.context)).pipe(
  Command.withDescription(
    `Print exactly what SessionStart injects for a project (default: here), within contextTokens (default ${MemoryConfig.defaults.contextTokens})`
  )
)

const retry = Command.make("retry", {}, lazyHandler(admin, (m) => m.retry)).pipe(
  Command.withDescription("Queue the failed events again")
)

const forget = Command.make("forget", MemoryOptions.forgetConfig, lazyHandler(admin, (m) => m.forget)).pipe(
  Command.withDescription(
    "Hide entries by id (O12, S3; for the whole team when shared), or delete a session's, a project's or everything before a date's memory"
  )
)

const sync = Command.make(
  "sync",
  MemoryOptions.syncConfig,
  lazyHandler(() => import("./run/memoryTeam.js"), (m) => m.sync)
).pipe(
  Command.withDescription(
    "Sync the team memory now (acx memory install --team): share your entries, push forgotten ones, pull teammates'"
  )
)

const backup = Command.make("backup", {}, lazyHandler(admin, (m) => m.backup)).pipe(
  Command.withDescription("Back the memory database up now (online; the worker also does it daily)")
)

const restore = Command.make("restore", MemoryOptions.restoreConfig, lazyHandler(admin, (m) => m.restore)).pipe(
  Command.withDescription("Replace the memory database with a backup (the current one is kept first)")
)

const install = Command.make("install", MemoryOptions.installConfig, lazyHandler(admin, (m) => m.install)).pipe(
  Command.withDescription(
    "Add acx's memory hooks to Claude Code's settings and its MCP server where Claude Code reads them (backups first; twice changes nothing)"
  )
)

const uninstall = Command.make("uninstall", MemoryOptions.uninstallConfig, lazyHandler(admin, (m) => m.uninstall)).pipe(
  Command.withDescription("Remove exactly what acx memory install added (backups first)")
)

const backfill = Command.make(
  "backfill",
  MemoryOptions.backfillConfig,
  lazyHandler(() => import("./run/memoryBackfill.js"), (m) => m.run)
).pipe(
  Command.withDescription(
    "Distil past sessions' transcripts into observations and summaries, as if the hooks had seen them (once per session; resumable)"
  )
)

const mcp = Command.make(
  "mcp",
  MemoryOptions.mcpConfig,
  lazyHandler(() => import("./run/memoryMcp.js"), (m) => m.run)
).pipe(
  Command.withDescription(
    "The memory as an MCP server on stdio (search, get_observations, timeline; search_sessions and get_session_turns over the session store) for Claude Code: acx memory install registers it"
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
    sync,
    backup,
    restore,
    install,
    uninstall,
    mcp,
    backfill,
    memoryDemo,
    worker
  ])
)
