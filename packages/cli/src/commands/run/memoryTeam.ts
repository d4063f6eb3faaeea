/**
 * The team memory in the CLI: `acx memory install --team URL` (the settings saved owner-only, a
 * first sync tried), `acx memory sync`, and the sync the worker runs beside its queue. A project
 * is shared by its git remote (`ProjectOrigin`, read where the sync runs, never in a hook).
 *
 * @since 0.4.0
 */
import * as ProjectOrigin from "@acx/claude-code/ProjectOrigin"
import type { MemoryError } from "@acx/memory/MemoryError"
import * as TeamConfig from "@acx/memory/TeamConfig"
import * as TeamSync from "@acx/memory/TeamSync"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { type CliError, invalidArgument } from "../../CliError.js"
import type { CurrentIo } from "../../internal/currentIo.js"
import { databaseLayer, files, withDatabase } from "../../internal/memoryHome.js"
import type { SyncOptions } from "../args/memory.js"

/**
 * A working directory's project identity: its git remote (`github.com/org/repo`), else its path.
 *
 * @since 0.4.0
 * @category identity
 */
export const identify = (cwd: string): string | undefined => Effect.runSync(ProjectOrigin.projectOf(cwd))

const settingsOrFail: Effect.Effect<TeamConfig.TeamSettings, CliError | MemoryError, CurrentIo> = Effect.flatMap(
  files,
  (paths) =>
    Either.match(TeamConfig.load(paths.home), {
      onLeft: (error): Effect.Effect<TeamConfig.TeamSettings, CliError | MemoryError> => Effect.fail(error),
      onRight: (settings) =>
        settings === undefined
          ? Effect.fail(invalidArgument("the team memory is not set up: acx memory install --team postgres://…"))
          : Effect.succeed(settings)
    })
)

/**
 * A team sync's report in one line: `shared 2 entries, pushed 1 forgotten state, pulled 0 (1 shared project)`.
 *
 * @since 0.4.0
 * @category rendering
 */
export const describeTeamSync: (report: TeamSync.SyncReport) => string = TeamSync.describeReport

const describe = describeTeamSync

/**
 * The team settings `acx memory install --team URL [--user] [--machine]` names, checked before
 * anything is installed (a bad URL is refused without its password).
 *
 * @since 0.4.0
 * @category handlers
 */
export const parse = (
  url: string,
  named: { readonly user: string | undefined; readonly machine: string | undefined }
): Effect.Effect<TeamConfig.TeamSettings, CliError> =>
  Either.match(
    TeamConfig.fromUrl(url, { user: named.user, machine: named.machine }),
    { onLeft: (error) => Effect.fail(invalidArgument(error.description)), onRight: Effect.succeed }
  )

/**
 * Saves the team settings given to `acx memory install` and tries a first sync. A team database
 * that cannot be reached now is said in one line (the worker catches up later); one whose team
 * tables are missing or not this role's to use is said on stderr with the command that fixes it
 * (nothing catches up until an admin runs it); the install stands either way.
 *
 * @since 0.4.0
 * @category handlers
 */
export const setup = (settings: TeamConfig.TeamSettings): Effect.Effect<void, CliError | MemoryError, CurrentIo> =>
  Effect.gen(function*() {
    const { home } = yield* files
    TeamConfig.save(home, settings)
    yield* Console.log(
      `team memory: ${TeamConfig.display(settings)} as ${settings.user} on ${settings.machine} (settings in ${
        TeamConfig.file(home)
      }, owner-only)`
    )
    yield* withDatabase(Effect.gen(function*() {
      yield* TeamSync.markDue
      const result = yield* Effect.either(TeamSync.syncOnce({ settings, identify, by: "manual" }))
      yield* Either.match(result, {
        onLeft: (error) =>
          error.reason === "TeamUnreachable"
            ? Console.log(
              `team memory: not reachable now (${error.description}); memory works locally and the worker catches up later`
            )
            : Console.error(`team memory: not shared until this is fixed (memory works locally): ${error.description}`),
        onRight: (report) => Console.log(`team memory: ${describe(report)}`)
      })
    }))
  })

/**
 * `acx memory sync`: one sync now.
 *
 * @since 0.4.0
 * @category handlers
 */
export const sync = ({ json }: SyncOptions) =>
  Effect.gen(function*() {
    const settings = yield* settingsOrFail
    const report = yield* withDatabase(TeamSync.syncOnce({ settings, identify, by: "manual" }))
    yield* Console.log(json ? JSON.stringify(report) : describe(report))
  })

/**
 * The sync the worker runs beside its queue while it lives (nothing when the team memory is not
 * set up: a sync no longer due is then cleared, so hooks stop starting workers for it).
 *
 * @since 0.4.0
 * @category handlers
 */
export const workerSync = (log: (line: string) => void) =>
  Effect.gen(function*() {
    const loaded = TeamConfig.load((yield* files).home)
    if (Either.isLeft(loaded)) {
      log(`team sync: ${loaded.left.description}`)
      return yield* Effect.never
    }
    if (loaded.right === undefined) {
      yield* TeamSync.clearDue
      return yield* Effect.never
    }
    return yield* TeamSync.loop({ settings: loaded.right, identify, log })
  }).pipe(Effect.provide(databaseLayer), Effect.orElse(() => Effect.never))

/**
 * A last sync when the worker ends idle: what it distilled last is shared before it exits.
 *
 * @since 0.4.0
 * @category handlers
 */
export const finalSync = (log: (line: string) => void) =>
  Effect.gen(function*() {
    const loaded = TeamConfig.load((yield* files).home)
    if (Either.isLeft(loaded) || loaded.right === undefined) return
    const report = yield* TeamSync.syncOnce({ settings: loaded.right, identify })
    if (report.pushed + report.forgotten + report.pulled > 0) log(`team sync: ${describeTeamSync(report)}`)
  }).pipe(
    Effect.provide(databaseLayer),
    Effect.catchAll((error) =>
      Effect.sync(() =>
        log(
          `team sync failed (${
            error.reason === "TeamUnreachable" ? "caught up later" : "not shared until this is fixed"
          }): ${error.description}`
        )
      )
    )
  )
