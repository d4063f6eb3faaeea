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
import type { CommandRun } from "../CommandSpec.js"
import { effectCommand } from "../internal/effectCommand.js"
import { withProjectDir } from "../internal/options.js"
import type {
  BackfillOptions,
  ContextOptions,
  DemoOptions,
  ForgetOptions,
  InstallOptions,
  RestoreOptions,
  SearchOptions,
  ShowOptions,
  StatusOptions,
  SyncOptions,
  TimelineOptions,
  UninstallOptions
} from "./args/memory.js"

// the administration's module; the worker, backfill, team sync and demo load their own
const admin = () => import("./run/memory.js")

/**
 * @since 0.6.0
 * @category commands
 */
export const status: CommandRun<StatusOptions> = effectCommand(async (options) => (await admin()).status(options))

/**
 * @since 0.6.0
 * @category commands
 */
export const search: CommandRun<SearchOptions> = effectCommand(async (options, io) =>
  (await admin()).search(withProjectDir(options, io))
)

/**
 * @since 0.6.0
 * @category commands
 */
export const show: CommandRun<ShowOptions> = effectCommand(async (options) => (await admin()).show(options))

/**
 * @since 0.6.0
 * @category commands
 */
export const timeline: CommandRun<TimelineOptions> = effectCommand(async (options) => (await admin()).timeline(options))

/**
 * @since 0.6.0
 * @category commands
 */
export const context: CommandRun<ContextOptions> = effectCommand(async (options, io) =>
  (await admin()).context(withProjectDir(options, io))
)

/**
 * @since 0.6.0
 * @category commands
 */
export const retry: CommandRun<object> = effectCommand(async () => (await admin()).retry())

/**
 * @since 0.6.0
 * @category commands
 */
export const forget: CommandRun<ForgetOptions> = effectCommand(async (options, io) =>
  (await admin()).forget(withProjectDir(options, io))
)

/**
 * @since 0.6.0
 * @category commands
 */
export const sync: CommandRun<SyncOptions> = effectCommand(async (options) =>
  (await import("./run/memoryTeam.js")).sync(options)
)

/**
 * @since 0.6.0
 * @category commands
 */
export const backup: CommandRun<object> = effectCommand(async () => (await admin()).backup())

/**
 * @since 0.6.0
 * @category commands
 */
export const restore: CommandRun<RestoreOptions> = effectCommand(async (options) => (await admin()).restore(options))

/**
 * @since 0.6.0
 * @category commands
 */
export const install: CommandRun<InstallOptions> = effectCommand(async (options, io) =>
  (await admin()).install(withProjectDir(options, io))
)

/**
 * @since 0.6.0
 * @category commands
 */
export const uninstall: CommandRun<UninstallOptions> = effectCommand(async (options, io) =>
  (await admin()).uninstall(withProjectDir(options, io))
)

/**
 * @since 0.6.0
 * @category commands
 */
export const backfill: CommandRun<BackfillOptions> = effectCommand(async (options, io) =>
  (await import("./run/memoryBackfill.js")).run(withProjectDir(options, io))
)

/**
 * @since 0.6.0
 * @category commands
 */
export const demo: CommandRun<DemoOptions> = effectCommand(async (options) =>
  (await import("./run/memoryDemo.js")).run(options)
)

/**
 * @since 0.6.0
 * @category commands
 */
export const worker: CommandRun<object> = effectCommand(async () => (await import("./run/memoryWorker.js")).run())
