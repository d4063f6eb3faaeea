/**
 * `acx memory …`: the memory Claude Code gets through acx's hooks — `worker` (what hooks start),
 * `status`, `search`, `show`, `timeline`, `context` (what SessionStart injects), `retry`,
 * `forget`, `backup`, `restore`, `install` and `uninstall`. Everything lives under `$ACX_HOME`
 * (default `~/.acx`); a project is the absolute directory Claude Code ran in.
 *
 * @since 0.1.0
 */
import * as HookRunner from "@acx/memory/HookRunner"
import * as MemoryAdmin from "@acx/memory/MemoryAdmin"
import * as MemoryBackup from "@acx/memory/MemoryBackup"
import * as MemoryConfig from "@acx/memory/MemoryConfig"
import * as MemoryDatabase from "@acx/memory/MemoryDatabase"
import * as MemoryInstall from "@acx/memory/MemoryInstall"
import * as MemoryMcp from "@acx/memory/MemoryMcp"
import * as MemorySearch from "@acx/memory/MemorySearch"
import * as MemoryStore from "@acx/memory/MemoryStore"
import * as MemoryWorker from "@acx/memory/MemoryWorker"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as path from "node:path"
import { invalidArgument, printable } from "../CliError.js"
import * as format from "../internal/format.js"
import { untilSignal } from "../internal/signals.js"
import { jsonOption } from "../internal/source.js"
import { VERSION } from "../internal/version.js"
import { memoryDemo } from "./memoryDemo.js"

const files = () => MemoryConfig.paths(MemoryConfig.acxHome())

/** The memory database, checked for damage first (the error names the restore command). */
const withDatabase = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    yield* MemoryBackup.check(files())
    return yield* effect.pipe(Effect.provide(MemoryDatabase.layer(files().database)))
  })

/**
 * `-p/--project DIR`: a project is the absolute path Claude Code ran in (a relative one is
 * resolved against the current directory).
 *
 * @since 0.1.0
 * @category options
 */
export const memoryProjectOption = Options.text("project").pipe(
  Options.withAlias("p"),
  Options.withDescription("Only this project: the directory Claude Code ran in (absolute, or relative to here)"),
  Options.optional,
  Options.map(Option.map((value) => path.resolve(value)))
)

const parseDate = (text: string) => {
  const value = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text)
  return Number.isNaN(value)
    ? Effect.fail(invalidArgument(`"${text}" is not a date (YYYY-MM-DD or an ISO time)`))
    : Effect.succeed(value)
}

const worker = Command.make("worker", {}, () =>
  Effect.gen(function*() {
    const paths = files()
    yield* MemoryBackup.check(paths)
    const { config } = MemoryConfig.load(paths.home)
    yield* MemoryBackup.backupIfDue(paths, { keep: config.backupsKept }).pipe(
      Effect.catchAll((error) => Console.error(`acx memory worker: no backup today: ${error.message}`))
    )
    const exit = yield* MemoryWorker.run({ home: paths.home, config }).pipe(
      Effect.provide(MemoryDatabase.layer(paths.database)),
      // SIGTERM / SIGINT stop it gracefully: observers interrupted and closed, the lock released
      Effect.raceFirst(untilSignal)
    )
    yield* Console.error(
      exit._tag === "Signal"
        ? `acx memory worker: stopped by ${exit.signal}`
        : exit._tag === "AlreadyRunning"
        ? `acx memory worker: another worker runs (pid ${exit.pid}); nothing to do`
        : exit._tag === "LockLost"
        ? "acx memory worker: another worker took over"
        : `acx memory worker: done (${exit.batches} batches, ${exit.events} events)`
    )
  })).pipe(
    Command.withDescription(
      "Turn queued hook events into observations and summaries, then exit when idle (hooks start it)"
    )
  )

const money = (usd: number) => `$${usd.toFixed(usd < 1 ? 4 : 2)}`

const statusCommand = Command.make("status", { json: jsonOption }, ({ json }) =>
  withDatabase(Effect.gen(function*() {
    const paths = files()
    const settings = MemoryConfig.load(paths.home)
    const status = yield* MemoryAdmin.status(paths, settings)
    if (json) return yield* Console.log(format.json(status))
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
        status.worker.localReason === null
          ? `${config.model} (the observer)`
          : `none, observations are recorded locally (${status.worker.localReason})`
      }`,
      `today:    ${status.today.calls} model calls, ${format.count(status.today.tokens)} tokens, ${
        money(status.today.costUsd)
      }${budget.length > 0 ? ` (budget: ${budget.join(", ")})` : ""}`,
      `kept:     ${status.counts.observations} observations, ${status.counts.summaries} summaries, ${status.counts.prompts} prompts`,
      `sessions: ${Object.entries(status.sessions).map(([name, n]) => `${n} ${name}`).join(", ") || "none"}`,
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
    yield* Console.log(lines.join("\n"))
  }))).pipe(Command.withDescription("Queue, worker, today's spend against the budget, failures, the settings in force"))

const search = Command.make(
  "search",
  {
    query: Args.text({ name: "query" }).pipe(Args.withDescription("Words to search for (full-text)")),
    project: memoryProjectOption,
    type: Options.text("type").pipe(
      Options.withDescription("Only this observation type (decision, bugfix, feature, …), or summary, or prompt"),
      Options.optional
    ),
    since: Options.text("since").pipe(Options.withDescription("Only from this date on (YYYY-MM-DD)"), Options.optional),
    limit: Options.integer("limit").pipe(Options.withDefault(20), Options.withDescription("At most this many")),
    json: jsonOption
  },
  ({ json, limit, project, query, since, type }) =>
    withDatabase(Effect.gen(function*() {
      const results = yield* MemorySearch.search(query, {
        project: Option.getOrUndefined(project),
        type: Option.getOrUndefined(type),
        since: Option.isSome(since) ? yield* parseDate(since.value) : undefined,
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
).pipe(Command.withDescription("Full-text search of observations, summaries and prompts, best matches first"))

const show = Command.make(
  "show",
  {
    id: Args.text({ name: "id" }).pipe(Args.withDescription("An observation, summary or prompt id: O12, S3 or P7")),
    json: jsonOption
  },
  ({ id, json }) =>
    withDatabase(Effect.gen(function*() {
      const entry = yield* MemorySearch.show(id)
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
).pipe(Command.withDescription("One observation, summary or prompt in full"))

const timeline = Command.make(
  "timeline",
  {
    id: Args.text({ name: "id" }).pipe(Args.withDescription("The entry to center on: O12, S3 or P7")),
    window: Options.integer("window").pipe(Options.withDefault(5), Options.withDescription("Entries before and after")),
    json: jsonOption
  },
  ({ id, json, window }) =>
    withDatabase(Effect.gen(function*() {
      const entries = yield* MemorySearch.timeline(id, window)
      if (json) return yield* Console.log(format.json(entries))
      for (const entry of entries) {
        yield* Console.log(
          `${entry.id === id.toUpperCase() ? ">" : " "} ${entry.id.padEnd(7)} ${entry.type.padEnd(9)} ${
            format.date(entry.createdAt)
          }  ${printable(format.clip(entry.title, 100))}`
        )
      }
    }))
).pipe(Command.withDescription("What happened in the project around an entry"))

const context = Command.make("context", { project: memoryProjectOption }, ({ project }) =>
  Effect.gen(function*() {
    const dir = Option.getOrElse(project, () => process.cwd())
    yield* MemoryBackup.check(files())
    const text = yield* Effect.try({
      try: () => HookRunner.contextFor(files().home, dir),
      catch: (cause) =>
        invalidArgument(`cannot read the memory: ${cause instanceof Error ? cause.message : String(cause)}`)
    })
    yield* Console.log(text === "" ? `(nothing remembered for ${dir} yet)` : text)
  })).pipe(
    Command.withDescription(
      `Print exactly what SessionStart injects for a project (default: here), within contextTokens (default ${MemoryConfig.defaults.contextTokens})`
    )
  )

const retry = Command.make("retry", {}, () =>
  withDatabase(Effect.gen(function*() {
    const count = yield* MemoryStore.retryFailed()
    yield* Console.log(
      count === 0 ? "no failed events" : `${count} failed event(s) queued again; the next hook starts the worker`
    )
  }))).pipe(Command.withDescription("Queue the failed events again"))

const forget = Command.make(
  "forget",
  {
    session: Options.text("session").pipe(Options.withDescription("A Claude Code session id"), Options.optional),
    project: memoryProjectOption,
    before: Options.text("before").pipe(
      Options.withDescription("Everything before this date (YYYY-MM-DD)"),
      Options.optional
    )
  },
  ({ before, project, session }) =>
    withDatabase(Effect.gen(function*() {
      const forgotten = yield* MemoryAdmin.forget(files(), {
        session: Option.getOrUndefined(session),
        project: Option.getOrUndefined(project),
        before: Option.isSome(before) ? yield* parseDate(before.value) : undefined
      })
      yield* Console.log(
        `forgot ${forgotten.observations} observations, ${forgotten.summaries} summaries, ${forgotten.prompts} prompts, ${forgotten.events} events, ${forgotten.sessions} sessions`
      )
    }))
).pipe(Command.withDescription("Delete a session's, a project's or everything before a date's memory"))

const backup = Command.make("backup", {}, () =>
  Effect.gen(function*() {
    const { config } = MemoryConfig.load(files().home)
    const info = yield* MemoryBackup.backup(files(), { keep: config.backupsKept })
    yield* Console.log(`backed up to ${info.path} (${format.bytes(info.size)})`)
  })).pipe(Command.withDescription("Back the memory database up now (online; the worker also does it daily)"))

const restore = Command.make("restore", {
  file: Args.text({ name: "file" }).pipe(Args.withDescription("The backup file to restore"))
}, ({ file }) =>
  Effect.gen(function*() {
    const info = yield* MemoryBackup.restore(files(), path.resolve(file))
    yield* Console.log(
      `restored ${info.restored}${
        info.previous === undefined ? "" : `; the database it replaced is kept at ${info.previous}`
      }`
    )
  })).pipe(Command.withDescription("Replace the memory database with a backup (the current one is kept first)"))

const scopeOption = Options.choice("scope", ["user", "project"]).pipe(
  Options.withDescription(
    "user: every project (the Claude config dir's settings.json); project: this one (.claude/settings.json)"
  )
)

/** `"<node>" "<acx bin>" hook <Event>`: absolute, so Claude Code's PATH does not matter. */
const hookCommand = (event: string) => {
  const quote = (text: string) => `"${text.replace(/(["\\$`])/g, "\\$1")}"`
  return `${quote(process.execPath)} ${quote(path.resolve(process.argv[1] ?? "acx"))} hook ${event}`
}

const install = Command.make(
  "install",
  { scope: scopeOption.pipe(Options.withDefault("user" as const)), project: memoryProjectOption },
  ({ project, scope }) =>
    Effect.gen(function*() {
      const report = yield* MemoryInstall.install({
        scope,
        projectDir: Option.getOrUndefined(project),
        hookCommand,
        mcpServer: { command: process.execPath, args: [path.resolve(process.argv[1] ?? "acx"), "memory", "mcp"] }
      })
      for (const line of MemoryInstall.describeReport(report)) yield* Console.log(line)
    })
).pipe(
  Command.withDescription(
    "Add acx's memory hooks to Claude Code's settings and its MCP server where Claude Code reads them (backups first; twice changes nothing)"
  )
)

const uninstall = Command.make(
  "uninstall",
  { scope: scopeOption.pipe(Options.optional), project: memoryProjectOption },
  ({ project, scope }) =>
    Effect.gen(function*() {
      const report = yield* MemoryInstall.uninstall({
        scope: Option.getOrUndefined(scope),
        projectDir: Option.getOrUndefined(project)
      })
      for (const line of MemoryInstall.describeReport(report)) yield* Console.log(line)
    })
).pipe(Command.withDescription("Remove exactly what acx memory install added (backups first)"))

/** Ends when the client closes stdin: the server has no one left to answer. */
const untilStdinEnds = Effect.async<void>((resume) => {
  const done = () => resume(Effect.void)
  process.stdin.once("end", done)
  process.stdin.once("close", done)
  return Effect.sync(() => {
    process.stdin.off("end", done)
    process.stdin.off("close", done)
  })
})

const mcp = Command.make("mcp", {}, () =>
  withDatabase(
    Layer.launch(MemoryMcp.layerStdio(VERSION)).pipe(
      Effect.raceFirst(untilStdinEnds),
      Effect.raceFirst(untilSignal),
      // stdout is the protocol: every log line goes to stderr
      Effect.provide(Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true, colors: false })))
    )
  )).pipe(
    Command.withDescription(
      "The memory as an MCP server on stdio (search, get_observations, timeline) for Claude Code: acx memory install registers it"
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
    backup,
    restore,
    install,
    uninstall,
    mcp,
    memoryDemo,
    worker
  ])
)
