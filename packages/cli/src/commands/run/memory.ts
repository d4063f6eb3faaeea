/**
 * What the `acx memory` subcommands do (their options: `../memory.ts`), but for `worker`
 * (`memoryWorker.ts`) and `mcp` (`memoryMcp.ts`), which load what these do not need.
 *
 * @since 0.1.0
 */
import { plural } from "@acx/convert/Plural"
import * as TerminalText from "@acx/convert/TerminalText"
import * as DatabaseSpec from "@acx/environment/DatabaseSpec"
import * as HookRunner from "@acx/memory/HookRunner"
import * as MemoryAdmin from "@acx/memory/MemoryAdmin"
import * as MemoryBackup from "@acx/memory/MemoryBackup"
import * as MemoryConfig from "@acx/memory/MemoryConfig"
import * as MemoryInstall from "@acx/memory/MemoryInstall"
import * as MemoryInstallReport from "@acx/memory/MemoryInstallReport"
import * as MemoryRepo from "@acx/memory/MemoryRepo"
import * as TeamConfig from "@acx/memory/TeamConfig"
import * as TeamSync from "@acx/memory/TeamSync"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { type CliError, invalidArgument, printable } from "../../CliError.js"
import { binOf, CurrentIo, resolvePath, settingsLocation } from "../../internal/currentIo.js"
import * as format from "../../internal/format.js"
import { hookCommand } from "../../internal/hookCommand.js"
import { files, withDatabase } from "../../internal/memoryHome.js"
import { money, parseDate } from "../../internal/memoryValues.js"
import type {
  ContextOptions,
  ForgetOptions,
  InstallOptions,
  RestoreOptions,
  SearchOptions,
  ShowOptions,
  StatusOptions,
  TimelineOptions,
  UninstallOptions
} from "../args/memory.js"

/**
 * `acx memory status`.
 *
 * @since 0.1.0
 * @category handlers
 */
export const status = ({ json }: StatusOptions) =>
  withDatabase(Effect.gen(function*() {
    const paths = yield* files
    const settings = MemoryConfig.load(paths.home)
    const status = yield* (yield* MemoryRepo.MemoryRepo).status(paths, settings)
    const team = yield* teamStatus(paths.home)
    if (json) return yield* Console.log(format.json(team === undefined ? status : { ...status, team }))
    const { config } = settings
    const budget = [
      config.dailyBudgetUsd === null ? undefined : `${money(status.today.costUsd)} of ${money(config.dailyBudgetUsd)}`,
      config.dailyBudgetTokens === null
        ? undefined
        : `${format.count(status.today.tokens)} of ${format.count(config.dailyBudgetTokens)} tokens`
    ].filter((part) => part !== undefined)
    const lines = [
      `memory:   ${paths.database}`,
      `queue:    ${status.queue.pending} pending, ${status.queue.done} done, ${status.queue.failed} failed`,
      `worker:   ${
        status.worker.running
          ? `running (pid ${status.worker.pid})`
          : `not running${status.worker.stoppedAt === null ? "" : ` (stopped ${format.date(status.worker.stoppedAt)})`}`
      }`,
      `model:    ${
        MemoryAdmin.modelLine(status, config, MemoryAdmin.observerCredentials(paths, (yield* CurrentIo).env))
      }`,
      `today:    ${status.today.calls} model calls, ${format.count(status.today.tokens)} tokens, ${
        money(status.today.costUsd)
      }${budget.length > 0 ? ` (budget: ${budget.join(", ")})` : ""}`,
      `kept:     ${status.counts.observations} observations, ${status.counts.summaries} summaries, ${status.counts.prompts} prompts`,
      `sessions: ${Object.entries(status.sessions).map(([name, n]) => `${n} ${name}`).join(", ") || "none"}`,
      ...(team === undefined ? [] : teamLines(team)),
      ...(status.lastError === null ? [] : [`last error: ${printable(status.lastError)}`]),
      ...(status.failed.length === 0 ? [] : [
        "failed events (acx memory retry re-queues them):",
        ...status.failed.map((event) =>
          `  #${event.id} ${event.kind}${
            event.toolName === null ? "" : ` ${event.toolName}`
          } (session ${event.sessionId}, ${event.attempts} attempts): ${
            printable(format.clip(event.lastError ?? "", 100))
          }`
        )
      ]),
      `settings (${settings.file}):`,
      ...Object.entries(config).map(([key, value]) => `  ${key}: ${JSON.stringify(value)}`),
      ...settings.problems.map((problem) => `  ! ${problem}`)
    ]
    yield* Console.log(TerminalText.lines(lines.join("\n")))
  }))

/** The team memory's settings and state, when it is set up (the URL's password masked). */
const teamStatus = (home: string) =>
  Effect.gen(function*() {
    const loaded = TeamConfig.load(home)
    if (Either.isLeft(loaded)) return { database: loaded.left.description, syncedAt: null, lastError: null }
    if (loaded.right === undefined) return undefined
    const settings = loaded.right
    const state = yield* TeamSync.state
    return { database: TeamConfig.display(settings), user: settings.user, machine: settings.machine, ...state }
  })

const teamLines = (team: NonNullable<Effect.Effect.Success<ReturnType<typeof teamStatus>>>) => [
  `team:     ${team.database}${"user" in team ? ` as ${team.user} on ${team.machine}` : ""}; ${
    team.syncedAt === null ? "never synced" : `last synced ${format.date(team.syncedAt)}`
  }${
    "shared" in team
      ? `; ${team.shared} shared, ${team.fromTeammates} from teammates, ${team.waiting} forgotten states to push`
      : ""
  }`,
  ...(team.lastError === null ? [] : [`team error: ${printable(team.lastError)}`]),
  ...("lastManual" in team && team.lastManual !== null
    ? [
      `team manual sync: ${format.date(team.lastManual.at)}: ${
        "error" in team.lastManual
          ? `failed: ${printable(team.lastManual.error)}`
          : TeamSync.describeReport(team.lastManual)
      }`
    ]
    : [])
]

/**
 * `acx memory search`.
 *
 * @since 0.1.0
 * @category handlers
 */
export const search = ({ json, limit, project, query, since, type }: SearchOptions) =>
  withDatabase(Effect.gen(function*() {
    const results = yield* (yield* MemoryRepo.MemoryRepo).search(query, {
      project,
      type,
      since: since === undefined ? undefined : yield* parseDate(since),
      limit
    })
    if (json) return yield* Console.log(format.json(results))
    if (results.length === 0) return yield* Console.log(`nothing found for "${query}"`)
    for (const result of results) {
      yield* Console.log(
        `${result.id.padEnd(7)} ${result.type.padEnd(9)} ${format.date(result.createdAt)}  ${
          printable(format.clip(result.title, 90))
        }\n        ${printable(result.snippet.replace(/\s+/g, " "))}  (${result.project})`
      )
    }
  }))

/**
 * `acx memory show`.
 *
 * @since 0.1.0
 * @category handlers
 */
export const show = ({ id, json }: ShowOptions) =>
  withDatabase(Effect.gen(function*() {
    const entry = yield* (yield* MemoryRepo.MemoryRepo).show(id)
    if (json) return yield* Console.log(format.json(entry))
    const lines = [`${entry.id} (${entry.kind})`]
    for (const [column, value] of Object.entries(entry.fields)) {
      if (column === "id" || value === null || value === "") continue
      const shown = column.endsWith("_at") && typeof value === "number"
        ? format.date(value)
        : Array.isArray(value)
        ? value.join(", ")
        : String(value)
      lines.push(`${column}: ${shown.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, "?")}`)
    }
    yield* Console.log(lines.join("\n"))
  }))

/**
 * `acx memory timeline`.
 *
 * @since 0.1.0
 * @category handlers
 */
export const timeline = ({ id, json, window }: TimelineOptions) =>
  withDatabase(Effect.gen(function*() {
    const entries = yield* (yield* MemoryRepo.MemoryRepo).timeline(id, window)
    if (json) return yield* Console.log(format.json(entries))
    for (const entry of entries) {
      yield* Console.log(
        `${entry.id === id.toUpperCase() ? ">" : " "} ${entry.id.padEnd(7)} ${entry.type.padEnd(9)} ${
          format.date(entry.createdAt)
        }  ${printable(format.clip(entry.title, 100))}`
      )
    }
  }))

/**
 * `acx memory context`.
 *
 * @since 0.1.0
 * @category handlers
 */
export const context = ({ project }: ContextOptions) =>
  Effect.gen(function*() {
    const dir = project ?? (yield* CurrentIo).cwd
    const paths = yield* files
    yield* MemoryBackup.check(paths)
    // the same text the web page's memory view serves
    const { text } = yield* Effect.try({
      try: () => HookRunner.contextReport(paths.home, dir),
      catch: (cause) =>
        invalidArgument(`cannot read the memory: ${cause instanceof Error ? cause.message : String(cause)}`)
    })
    yield* Console.log(text)
  })

/**
 * `acx memory retry`.
 *
 * @since 0.1.0
 * @category handlers
 */
export const retry = () =>
  withDatabase(Effect.gen(function*() {
    const count = yield* (yield* MemoryRepo.MemoryRepo).retryFailed
    yield* Console.log(
      count === 0
        ? "no failed events"
        : `${plural(count, "failed event")} queued again; the next hook starts the worker`
    )
  }))

/**
 * `acx memory forget`.
 *
 * @since 0.1.0
 * @category handlers
 */
export const forget = ({ before, ids, project, session }: ForgetOptions) =>
  withDatabase(Effect.gen(function*() {
    if (ids.length > 0) {
      if (before !== undefined || project !== undefined || session !== undefined) {
        return yield* invalidArgument("forget takes ids, or --session/--project/--before, not both")
      }
      // soft, as on the page: hidden everywhere, and for the whole team when the entry is shared
      const forgotten = yield* (yield* MemoryRepo.MemoryRepo).forget({ ids })
      return yield* Console.log(
        forgotten.length === 0 ? "nothing to forget (unknown or already forgotten)" : `forgot ${forgotten.join(", ")}`
      )
    }
    const forgotten = yield* (yield* MemoryRepo.MemoryRepo).purge(yield* files, {
      env: (yield* CurrentIo).env,
      session,
      project,
      before: before === undefined ? undefined : yield* parseDate(before)
    })
    yield* Console.log(
      `forgot ${plural(forgotten.observations, "observation")}, ${
        plural(forgotten.summaries, "summary", "summaries")
      }, ${plural(forgotten.prompts, "prompt")}, ${plural(forgotten.events, "event")}, ${
        plural(forgotten.sessions, "session")
      }`
    )
  }))

/**
 * `acx memory backup`.
 *
 * @since 0.1.0
 * @category handlers
 */
export const backup = () =>
  Effect.gen(function*() {
    const paths = yield* files
    const { config } = MemoryConfig.load(paths.home)
    const info = yield* MemoryBackup.backup(paths, { keep: config.backupsKept })
    yield* Console.log(`backed up to ${info.path} (${format.bytes(info.size)})`)
  })

/**
 * `acx memory restore`.
 *
 * @since 0.1.0
 * @category handlers
 */
export const restore = ({ file }: RestoreOptions) =>
  Effect.gen(function*() {
    const info = yield* MemoryBackup.restore(yield* files, resolvePath(yield* CurrentIo, file))
    yield* Console.log(
      `restored ${info.restored}${
        info.previous === undefined ? "" : `; the database it replaced is kept at ${info.previous}`
      }`
    )
  })

/**
 * A store spec as the MCP server will be given it: checked, a SQLite file made absolute (Claude
 * Code starts the server in another directory); a Postgres URL as typed.
 */
const serverSpec = (spec: string, cwd: string): Effect.Effect<string, CliError> =>
  Either.match(DatabaseSpec.parse(spec, { cwd }), {
    onLeft: (error) => Effect.fail(invalidArgument(`--sessions-from: ${error.description}`)),
    onRight: (database) => Effect.succeed(database._tag === "Sqlite" ? `sqlite:${database.filename}` : spec)
  })

/**
 * `acx memory install`.
 *
 * @since 0.1.0
 * @category handlers
 */
export const install = ({ machine, project, scope, sessionsFrom, team, user }: InstallOptions) =>
  Effect.gen(function*() {
    // the team URL is checked before anything is installed
    const teamSetup = team === undefined ? undefined : yield* Effect.promise(() => import("./memoryTeam.js"))
    const teamSettings = teamSetup === undefined || team === undefined
      ? undefined
      : yield* teamSetup.parse(team, { user, machine })
    const from = sessionsFrom === undefined
      ? []
      : yield* Effect.map(serverSpec(sessionsFrom, (yield* CurrentIo).cwd), (given) => ["--from", given])
    const io = yield* CurrentIo
    const report = yield* MemoryInstall.install({
      ...settingsLocation(io),
      scope,
      projectDir: project,
      hookCommand: hookCommand(binOf(io)),
      mcpServer: {
        command: process.execPath,
        args: [binOf(io), "memory", "mcp", ...from]
      }
    })
    for (const line of MemoryInstallReport.describeReport(report)) yield* Console.log(line)
    if (teamSetup !== undefined && teamSettings !== undefined) yield* teamSetup.setup(teamSettings)
  })

/**
 * `acx memory uninstall`.
 *
 * @since 0.1.0
 * @category handlers
 */
export const uninstall = ({ project, scope }: UninstallOptions) =>
  Effect.gen(function*() {
    const io = yield* CurrentIo
    const report = yield* MemoryInstall.uninstall({
      ...settingsLocation(io),
      scope,
      projectDir: project
    })
    for (const line of MemoryInstallReport.describeReport(report)) yield* Console.log(line)
    // the team settings go with the hooks (what was shared stays in the team's database)
    if (TeamConfig.remove((yield* files).home)) yield* Console.log(`removed the team memory's settings`)
  })
