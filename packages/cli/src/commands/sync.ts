/**
 * `acx sync [--to TARGET] [--watch]`: keeps a store (default `sqlite:$ACX_HOME/sessions.db`)
 * equal to a Claude Code config directory, keeping the sessions Claude Code deletes;
 * `acx sync install` / `uninstall`: the Claude Code hooks that sync after every session moves.
 * What they do: `run/sync.ts`, `run/syncInstall.ts`.
 *
 * @since 0.3.0
 */
import type { CommandRun } from "../CommandSpec.js"
import { effectCommand } from "../internal/effectCommand.js"
import { withProjectDir } from "../internal/options.js"
import type { SyncInstallOptions, SyncOptions, SyncUninstallOptions } from "./args/sync.js"

const syncing: CommandRun<SyncOptions> = effectCommand(async (options) => (await import("./run/sync.js")).run(options))

/**
 * First whether the config directory is unchanged since the last sync into its SQLite store
 * (`internal/unchangedSync.ts`: the store's ledger and the files' stat, no Effect): then the
 * summary is printed and the command is done. Else the sync runs (Effect is loaded then).
 *
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<SyncOptions> = async (options, io) => {
  const started = Date.now()
  const { unchangedSummary } = await import("../internal/unchangedSync.js")
  const unchanged = unchangedSummary(options, io, started)
  if (unchanged === undefined) return syncing(options, io)
  await io.stdout(`${unchanged}\n`)
  return 0
}

/**
 * @since 0.6.0
 * @category commands
 */
export const install: CommandRun<SyncInstallOptions> = effectCommand(async (options, io) =>
  (await import("./run/syncInstall.js")).install(withProjectDir(options, io))
)

/**
 * @since 0.6.0
 * @category commands
 */
export const uninstall: CommandRun<SyncUninstallOptions> = effectCommand(async (options, io) =>
  (await import("./run/syncInstall.js")).uninstall(withProjectDir(options, io))
)
