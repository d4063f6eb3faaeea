/**
 * `acx sync [--to TARGET] [--watch]`: keeps a store (default `sqlite:$ACX_HOME/sessions.db`)
 * equal to a Claude Code config directory, keeping the sessions Claude Code deletes;
 * `acx sync install` / `uninstall`: the Claude Code hooks that sync after every session moves.
 * What they do: `run/sync.ts`, `run/syncInstall.ts`.
 *
 * @since 0.3.0
 */
import * as Command from "@effect/cli/Command"
import { lazyHandler } from "../internal/lazyHandler.js"
import * as SyncOptions from "./args/sync.js"

const installs = () => import("./run/syncInstall.js")

const install = Command.make("install", SyncOptions.installConfig, lazyHandler(installs, (m) => m.install)).pipe(
  Command.withDescription(
    "Add hooks (Stop, SessionEnd, PreCompact) to Claude Code's settings that sync in the background (backups first; twice changes nothing)"
  )
)

const uninstall = Command.make("uninstall", SyncOptions.uninstallConfig, lazyHandler(installs, (m) => m.uninstall))
  .pipe(Command.withDescription("Remove exactly what acx sync install added (backups first)"))

/**
 * @since 0.3.0
 * @category commands
 */
export const sync = Command.make(
  "sync",
  SyncOptions.config,
  lazyHandler(() => import("./run/sync.js"), (m) => m.run)
).pipe(
  Command.withDescription(
    "Keep every session of a Claude Code config directory in a store (SQLite or Postgres), also after Claude Code deletes it"
  ),
  Command.withSubcommands([install, uninstall])
)
