/**
 * What `acx statusline`, `install`, `uninstall` and `refresh` do. The line is printed by the
 * statusline's own bundle (`@acx/claude-code/StatuslineMain`), which the bin hands `acx statusline`
 * to; this module runs the same code when the full CLI is reached anyway. Install and uninstall
 * are `StatuslineInstall`'s (the memory's settings merge: backups first, idempotent, the
 * statusline replaced kept). Refresh folds the recent transcripts into the cached totals
 * (`StatuslineTotals.refresh`) and releases the lock the statusline took for it.
 *
 * @since 0.4.0
 */
import * as StatuslineInstall from "@acx/claude-code/StatuslineInstall"
import * as StatuslineTotals from "@acx/claude-code/StatuslineTotals"
import * as TranscriptStats from "@acx/claude-code/TranscriptStats"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as CliError from "../../CliError.js"
import type { CommandIo } from "../../CommandIo.js"
import { configDirOf } from "../../internal/configDir.js"
import { acxPaths, binOf, CurrentIo, settingsLocation } from "../../internal/currentIo.js"
import { statuslineCommand } from "../../internal/hookCommand.js"
import type { RefreshOptions, StatuslineInstallOptions, StatuslineUninstallOptions } from "../args/statusline.js"

const describe = (report: StatuslineInstall.StatuslineReport, done: string, unchanged: string) =>
  Effect.gen(function*() {
    yield* Console.log(report.changed ? `${done}: ${report.settings}` : `${unchanged}: ${report.settings}`)
    if (report.backup !== undefined) yield* Console.log(`  backup: ${report.backup}`)
    yield* Console.log(`  statusLine: ${report.command ?? "(none)"}`)
    if (report.note !== undefined) yield* Console.log(`  note: ${report.note}`)
  })

/**
 * `acx statusline install`.
 *
 * @since 0.4.0
 * @category handlers
 */
export const install = ({ format, project, scope, wrap }: StatuslineInstallOptions) =>
  Effect.flatMap(CurrentIo, (io) =>
    StatuslineInstall.install({
      ...settingsLocation(io),
      scope,
      projectDir: project,
      command: (previous) => statuslineCommand({ format: format, wrap: wrap ? previous : undefined }, binOf(io))
    })).pipe(
      Effect.flatMap((report) => describe(report, "statusline installed", "statusline already installed"))
    )

/**
 * `acx statusline uninstall`.
 *
 * @since 0.4.0
 * @category handlers
 */
export const uninstall = ({ project, scope }: StatuslineUninstallOptions) =>
  Effect.flatMap(
    CurrentIo,
    (io) => StatuslineInstall.uninstall({ ...settingsLocation(io), scope, projectDir: project })
  ).pipe(
    Effect.flatMap((report) => describe(report, "statusline uninstalled", "nothing to uninstall"))
  )

/**
 * `acx statusline refresh`.
 *
 * @since 0.4.0
 * @category handlers
 */
export const refresh = ({ configDir }: RefreshOptions) => Effect.flatMap(CurrentIo, (io) => refreshIn(io, configDir))

const refreshIn = (io: CommandIo, configDir: string | undefined) => {
  const dir = configDirOf(configDir, io.env, io.cwd).resolved
  const cacheDir = acxPaths(io).cache
  return Effect.gen(function*() {
    const pricing = yield* TranscriptStats.loadPricing(acxPaths(io).pricing)
    const summary = yield* Effect.try({
      try: () => StatuslineTotals.refresh({ configDir: dir, cacheDir, pricing, nowMs: Date.now() }),
      catch: (cause) =>
        CliError.invalidArgument(`statusline refresh: ${cause instanceof Error ? cause.message : String(cause)}`)
    })
    yield* Console.log(JSON.stringify(summary))
  }).pipe(
    Effect.ensuring(
      Effect.sync(() => fs.rmSync(`${StatuslineTotals.summaryFile(cacheDir, dir)}.lock`, { force: true }))
    )
  )
}
