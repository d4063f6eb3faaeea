/**
 * `acx stats [--project P] [--json]`: per-session and total statistics (messages by role, tool
 * calls by name, tokens with the last-fragment usage rule, models, duration, subagents,
 * compactions), subagent transcripts included.
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as Stats from "@acx/convert/Stats"
import * as Command from "@effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as format from "../internal/format.js"
import { progress } from "../internal/progress.js"
import {
  configDirOption,
  followSymlinksOption,
  jsonOption,
  type MalformedFile,
  malformedWarning,
  projectOption,
  projectsLayer,
  readWithSubagents
} from "../internal/source.js"

/**
 * One session's statistics, keyed by where it lives.
 *
 * @since 0.1.0
 * @category models
 */
export interface SessionStatsRow {
  readonly projectKey: string
  readonly sessionId: string
  readonly stats: Stats.SessionStats
}

const tokens = (
  totals: { readonly input: number; readonly output: number; readonly cacheRead: number; readonly cacheWrite: number }
) =>
  `${format.count(totals.input)} in, ${format.count(totals.output)} out, ${
    format.count(totals.cacheRead)
  } cache read, ${format.count(totals.cacheWrite)} cache write`

const top = (record: Readonly<Record<string, number>>, limit: number): string => {
  const sorted = Object.entries(record).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  if (sorted.length === 0) return "-"
  const shown = sorted.slice(0, limit).map(([name, n]) => `${name} ${n}`).join(", ")
  return sorted.length > limit ? `${shown}, … (${sorted.length - limit} more)` : shown
}

/**
 * The per-session table plus the totals block (what `acx stats` and `acx demo` print).
 *
 * @since 0.1.0
 * @category rendering
 */
export const statsReport = (rows: ReadonlyArray<SessionStatsRow>, total: Stats.SessionStats): string => {
  const sessionTable = format.table(
    [
      { title: "SESSION" },
      { title: "USER", align: "right" },
      { title: "ASSISTANT", align: "right" },
      { title: "TOOLS", align: "right" },
      { title: "IN", align: "right" },
      { title: "OUT", align: "right" },
      { title: "CACHE R", align: "right" },
      { title: "DURATION", align: "right" },
      { title: "AGENTS", align: "right" },
      { title: "PROJECT" }
    ],
    rows.map(({ projectKey, sessionId, stats }) => [
      sessionId.slice(0, 8),
      String(stats.messages.user),
      String(stats.messages.assistant),
      String(Object.values(stats.toolCalls).reduce((a, b) => a + b, 0)),
      format.count(stats.tokens.input),
      format.count(stats.tokens.output),
      format.count(stats.tokens.cacheRead),
      format.duration(stats.durationMs),
      String(stats.subagents),
      format.clip(projectKey, 40)
    ])
  )
  const models = Object.keys(total.tokensByModel).sort()
  const lines = [
    `sessions     ${total.sessions}`,
    `messages     ${total.messages.user} user, ${total.messages.assistant} assistant, ${total.messages.toolResults} tool results, ${total.messages.meta} meta`,
    `tool calls   ${top(total.toolCalls, 8)}`,
    `tokens       ${tokens(total.tokens)}`,
    ...models.map((model) => `  ${model.padEnd(28)} ${tokens(total.tokensByModel[model]!)}`),
    `duration     ${format.duration(total.durationMs)}`,
    `subagents    ${total.subagents}`,
    `compactions  ${total.compactions}`
  ]
  return `${sessionTable}\n\n${lines.join("\n")}`
}

/**
 * Statistics of every session (of one project, or all), subagent transcripts included.
 *
 * @since 0.1.0
 * @category statistics
 */
export const collectStats = (
  projects: ClaudeProjects.ClaudeProjects,
  projectKey: string | undefined,
  onProgress: (done: number, total: number) => Effect.Effect<void> = () => Effect.void
): Effect.Effect<
  {
    readonly rows: Array<SessionStatsRow>
    readonly total: Stats.SessionStats
    readonly skippedLines: number
    readonly malformed: Array<MalformedFile>
  },
  ClaudeProjects.ClaudeProjectsError
> =>
  Effect.gen(function*() {
    const sessions = yield* projects.listSessionFiles(projectKey)
    let done = 0
    let skippedLines = 0
    const malformed: Array<MalformedFile> = []
    const rows = yield* Effect.forEach(sessions, (session) =>
      readWithSubagents(projects, session).pipe(
        Effect.tap((read) => {
          done++
          skippedLines += read.errors
          malformed.push(...read.malformed)
          return onProgress(done, sessions.length)
        }),
        Effect.map((read): SessionStatsRow => ({
          projectKey: session.projectKey,
          sessionId: session.sessionId,
          stats: Stats.sessionStats(read.entries)
        }))
      ))
    return { rows, total: Stats.projectStats(rows.map((row) => row.stats)), skippedLines, malformed }
  })

/**
 * @since 0.1.0
 * @category commands
 */
export const stats = Command.make(
  "stats",
  { configDir: configDirOption, project: projectOption, json: jsonOption, followSymlinks: followSymlinksOption },
  ({ configDir, followSymlinks, json, project }) =>
    Effect.gen(function*() {
      const projects = yield* ClaudeProjects.ClaudeProjects
      const bar = progress("reading", { enabled: !json, unit: "sessions" })
      const result = yield* collectStats(projects, Option.getOrUndefined(project), (done, total) =>
        bar.update(done, total)).pipe(Effect.ensuring(bar.clear))
      if (json) {
        return yield* Console.log(format.json(result))
      }
      if (result.rows.length === 0) {
        return yield* Console.log(`no sessions in ${projects.projectsDir}`)
      }
      yield* Console.log(statsReport(result.rows, result.total))
      const warning = malformedWarning(result.malformed)
      if (warning !== undefined) {
        yield* Console.error(warning)
      }
    }).pipe(Effect.provide(projectsLayer(configDir, { followSymlinks })))
).pipe(Command.withDescription("Statistics per session and in total: messages, tool calls, tokens, models, duration"))
