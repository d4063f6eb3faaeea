/**
 * What `acx sync install` / `uninstall` do: `MemoryInstall`'s merge into Claude Code's settings
 * (backups first, idempotent, exactly what was added taken out again), with the sync hook's
 * events and command and a manifest of their own (`$ACX_HOME/sync-install.json`): the memory's
 * hooks and the sync's never remove each other.
 *
 * @since 0.3.0
 */
import * as DatabaseSpec from "@acx/environment/DatabaseSpec"
import * as MemoryInstall from "@acx/memory/MemoryInstall"
import * as MemoryInstallReport from "@acx/memory/MemoryInstallReport"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as CliError from "../../CliError.js"
import { acxPaths, binOf, CurrentIo, settingsLocation } from "../../internal/currentIo.js"
import { syncHookCommand } from "../../internal/hookCommand.js"
import type { SyncInstallOptions, SyncUninstallOptions } from "../args/sync.js"

/**
 * The events the sync hook runs on, with their timeouts in seconds: the hook only starts a sync
 * and returns, so each is short. Stop: a turn ended; SessionEnd: the session closed; PreCompact:
 * the transcript is about to be compacted (its history synced first).
 *
 * @since 0.3.0
 * @category constants
 */
export const SYNC_HOOK_EVENTS = { Stop: 10, SessionEnd: 10, PreCompact: 10 } as const

/**
 * `acx sync install`.
 *
 * @since 0.3.0
 * @category handlers
 */
export const install = ({ project, scope, to }: SyncInstallOptions) =>
  Effect.gen(function*() {
    const target = to
    if (target !== undefined) {
      const parsed = DatabaseSpec.parse(target)
      if (Either.isLeft(parsed)) return yield* CliError.invalidArgument(`--to: ${parsed.left.description}`)
      // the hook command is written into settings.json, which a project's `.claude/` may share
      if (DatabaseSpec.hasPassword(parsed.right)) {
        return yield* CliError.invalidArgument(
          `--to: ${
            DatabaseSpec.display(parsed.right)
          } holds a password, which would be written into Claude Code's settings; put it in ~/.pgpass (or PGPASSWORD) and pass the URL without it`
        )
      }
    }
    const io = yield* CurrentIo
    const report = yield* MemoryInstall.install({
      ...settingsLocation(io),
      scope,
      projectDir: project,
      hookCommand: syncHookCommand(target, binOf(io)),
      hookEvents: SYNC_HOOK_EVENTS,
      manifest: acxPaths(io).syncInstallManifest
    })
    for (const line of MemoryInstallReport.describeReport(report, "sync")) yield* Console.log(line)
  })

/**
 * `acx sync uninstall`.
 *
 * @since 0.3.0
 * @category handlers
 */
export const uninstall = ({ project, scope }: SyncUninstallOptions) =>
  Effect.gen(function*() {
    const io = yield* CurrentIo
    const report = yield* MemoryInstall.uninstall({
      ...settingsLocation(io),
      scope,
      projectDir: project,
      manifest: acxPaths(io).syncInstallManifest
    })
    for (const line of MemoryInstallReport.describeReport(report, "sync")) yield* Console.log(line)
  })
