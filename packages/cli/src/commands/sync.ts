/**
 * `acx sync [--to TARGET] [--watch]`: keeps a store (default `sqlite:$ACX_HOME/sessions.db`)
 * equal to a Claude Code config directory, keeping the sessions Claude Code deletes;
 * `acx sync install` / `uninstall`: the Claude Code hooks that sync after every session moves.
 * What they do: `run/sync.ts`, `run/syncInstall.ts`.
 *
 * @since 0.3.0
 */
import type { CommandRun } from "../CommandSpec.js"
import type * as FastSync from "../fastSync.js"
import { requireBundled } from "../internal/bundled.js"
import { effectCommand } from "../internal/effectCommand.js"
import { withProjectDir } from "../internal/options.js"
import type { SyncInstallOptions, SyncOptions, SyncUninstallOptions } from "./args/sync.js"

const full: CommandRun<SyncOptions> = effectCommand(async (options) => (await import("./run/sync.js")).run(options))

/**
 * An unchanged `acx sync` into a SQLite store is answered by `fastSync.ts` (no Effect: the
 * store's ledger and the files' stat), when it is sure nothing changed and no sync is running;
 * else, into Postgres, or with `ACX_NO_FAST=1`, the full sync runs. Built, the fast answer is a
 * CommonJS bundle of its own beside the entry.
 *
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<SyncOptions> = async (options, io) => {
  const toPostgres = /^postgres(ql)?:\/\//i.test(options.to ?? "")
  if (io.env["ACX_NO_FAST"] !== "1" && !toPostgres) {
    const fast = requireBundled<typeof FastSync>("fast-sync.cjs", import.meta.url) ??
      await import("../fastSync.js")
    if (fast.main(io.argv, io.env as NodeJS.ProcessEnv)) return 0
  }
  return full(options, io)
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
