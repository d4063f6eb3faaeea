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

/**
 * What `acx memory status` and `acx memory sync` are given.
 *
 * @since 0.6.0
 * @category models
 */
export interface StatusOptions {
  readonly json: boolean
}

/**
 * @since 0.6.0
 * @category models
 */
export type SyncOptions = StatusOptions

/**
 * What `acx memory search` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface SearchOptions {
  readonly query: string
  readonly project: string | undefined
  readonly type: string | undefined
  readonly since: string | undefined
  readonly limit: number
  readonly json: boolean
}

/**
 * What `acx memory show` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface ShowOptions {
  readonly id: string
  readonly json: boolean
}

/**
 * What `acx memory timeline` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface TimelineOptions {
  readonly id: string
  readonly window: number
  readonly json: boolean
}

/**
 * What `acx memory context` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface ContextOptions {
  readonly project: string | undefined
}

/**
 * What `acx memory forget` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface ForgetOptions {
  readonly ids: ReadonlyArray<string>
  readonly session: string | undefined
  readonly project: string | undefined
  readonly before: string | undefined
}

/**
 * What `acx memory restore` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface RestoreOptions {
  readonly file: string
}

/**
 * What `acx memory install` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface InstallOptions {
  readonly scope: "user" | "project"
  readonly project: string | undefined
  readonly sessionsFrom: string | undefined
  readonly team: string | undefined
  readonly user: string | undefined
  readonly machine: string | undefined
}

/**
 * What `acx memory uninstall` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface UninstallOptions {
  readonly scope: "user" | "project" | undefined
  readonly project: string | undefined
}

/**
 * What `acx memory backfill` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface BackfillOptions {
  readonly configDir: string | undefined
  readonly from: string | undefined
  readonly project: string | undefined
  readonly since: string | undefined
  readonly mode: "local" | "model"
  readonly yes: boolean
  readonly dryRun: boolean
  readonly json: boolean
}

/**
 * What `acx memory demo` is given.
 *
 * @since 0.6.0
 * @category models
 */
export interface DemoOptions {
  readonly dir: string | undefined
}

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
