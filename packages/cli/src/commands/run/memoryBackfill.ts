/**
 * What `acx memory backfill` does: past sessions of a Claude Code config directory (or, with
 * `--from`, of a session store) distilled into the memory (`@acx/memory/MemoryBackfill`), with
 * progress on a terminal and a `--json` summary, and in model mode the estimate shown (and
 * confirmed on a terminal) before anything is spent.
 * Its own module: model mode loads the worker and its model client.
 *
 * @since 0.3.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import type * as BackfillEstimate from "@acx/memory/BackfillEstimate"
import * as MemoryBackfill from "@acx/memory/MemoryBackfill"
import * as MemoryConfig from "@acx/memory/MemoryConfig"
import * as MemoryWorker from "@acx/memory/MemoryWorker"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as readline from "node:readline"
import type { CliError } from "../../CliError.js"
import { invalidArgument, printable } from "../../CliError.js"
import { CurrentIo } from "../../internal/currentIo.js"
import * as format from "../../internal/format.js"
import { files, withDatabase } from "../../internal/memoryHome.js"
import { money, parseDate } from "../../internal/memoryValues.js"
import { progress } from "../../internal/progress.js"
import { isStoreBacked, type MalformedFile, malformedWarning, readingLayer } from "../../internal/source.js"
import type { BackfillOptions } from "../args/memory.js"

/**
 * A config directory's main transcripts, or a store's (`--from`), as a backfill source (its
 * listing's metadata filters them before any read).
 */
const configDirSource = (
  projects: ClaudeProjects.ClaudeProjects,
  malformed: Map<string, MalformedFile>
): MemoryBackfill.Source<ClaudeProjects.ClaudeProjectsError | CliError> => {
  const keys = new Map<string, string>()
  return {
    name: isStoreBacked(projects) ? `store:${projects.configDir}` : `config:${projects.configDir}`,
    sessions: Effect.map(projects.listSessions(), (sessions) =>
      sessions.map((session) => {
        keys.set(session.sessionId, session.projectKey)
        const last = session.lastTime === undefined ? Number.NaN : Date.parse(session.lastTime)
        return {
          sessionId: session.sessionId,
          transcriptPath: session.file,
          project: session.cwd,
          lastActivity: Number.isFinite(last) ? last : session.mtime
        }
      })),
    entries: (session) =>
      Effect.map(projects.readSession(keys.get(session.sessionId) ?? "", session.sessionId), (read) => {
        // one warning at the end names the files with lines that are not entries
        if (read.errors.length > 0) {
          malformed.set(session.transcriptPath, {
            file: session.transcriptPath,
            lines: read.errors.length,
            firstOffset: read.errorOffsets[0]
          })
        }
        return read.entries as ReadonlyArray<unknown>
      })
  }
}

const price = (usd: number | undefined) => usd === undefined ? "an unknown price" : money(usd)

const estimateLine = (estimate: BackfillEstimate.Estimate, model: string) =>
  `estimate: ${estimate.sessions} sessions, ${
    format.count(estimate.events)
  } events, ${estimate.calls} observer calls, ${
    format.count(estimate.inputTokens + estimate.outputTokens)
  } tokens, at most ${price(estimate.costUsd)} with ${model}`

/** Asks on the terminal; anything but y/yes declines. */
const ask = (question: string) =>
  Effect.async<boolean>((resume) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr })
    rl.question(question, (answer) => {
      rl.close()
      resume(Effect.succeed(/^y(es)?$/i.test(answer.trim())))
    })
    return Effect.sync(() => rl.close())
  })

/**
 * @since 0.3.0
 * @category handlers
 */
export const run = ({ configDir, dryRun, from, json, mode, project, since, yes }: BackfillOptions) =>
  Effect.gen(function*() {
    const paths = yield* files
    const { config } = MemoryConfig.load(paths.home)
    const sinceMs = since === undefined ? undefined : yield* parseDate(since)
    const projects = yield* ClaudeProjects.ClaudeProjects
    const io = yield* CurrentIo
    const bar = progress("backfill", io, { enabled: !json, unit: "sessions" })
    const interactive = process.stdin.isTTY === true && io.stderrIsTTY
    const malformed = new Map<string, MalformedFile>()
    const report = yield* withDatabase(MemoryBackfill.run({
      source: configDirSource(projects, malformed),
      mode,
      project,
      since: sinceMs,
      dryRun,
      home: paths.home,
      config,
      onProgress: (step) =>
        step.outcome === "unreadable"
          ? bar.clear.pipe(
            Effect.zipRight(Console.error(
              `acx: warning: session ${step.sessionId} not read (a later run tries again): ${
                printable(step.problem ?? "")
              }`
            ))
          )
          : bar.update(step.done, step.total),
      confirm: (estimate) =>
        Effect.gen(function*() {
          const line = estimateLine(estimate, config.model)
          if (yes) {
            if (!json) yield* Console.error(line)
            return true
          }
          if (!interactive) {
            return yield* Effect.fail(invalidArgument(`${line}: pass --yes to spend it (no terminal to ask on)`))
          }
          return yield* ask(
            `${line}; daily budget ${
              config.dailyBudgetUsd === null ? "none" : money(config.dailyBudgetUsd)
            }. Go on? [y/N] `
          )
        }),
      distil: Effect.map(
        MemoryWorker.run({ home: paths.home, config, idleTimeout: 0, pollInterval: "100 millis", log: () => {} }),
        (exit) => exit._tag === "AlreadyRunning" ? "busy" as const : "done" as const
      )
    }))
    yield* bar.clear
    const warning = malformedWarning([...malformed.values()])
    if (warning !== undefined) yield* Console.error(warning)
    if (json) return yield* Console.log(format.json(report))
    const lines = [
      // a real run in model mode showed it before it started
      ...(report.estimate === undefined || !report.dryRun
        ? []
        : [estimateLine(report.estimate, config.model)]),
      report.dryRun
        ? `dry run: ${report.sessions} sessions, ${report.already} backfilled before, ${
          report.estimate?.sessions ?? 0
        } to read; nothing stored`
        : report.declined
        ? "nothing spent: the estimate was declined"
        : `backfilled ${report.backfilled} of ${report.sessions} sessions (${report.mode}): ${report.observations} observations, ${report.summaries} summaries from ${report.events} events; ${report.already} backfilled before, ${report.live} recorded live, ${report.empty} with nothing to record${
          report.unreadable === 0 ? "" : `, ${report.unreadable} not readable`
        }${report.excluded === 0 ? "" : `, ${report.excluded} in excluded projects`}${
          report.waiting === 0 ? "" : `, ${report.waiting} left to the memory worker`
        } (${format.duration(report.elapsedMs)})`,
      ...(report.stopped === undefined ? [] : [report.stopped])
    ]
    yield* Console.log(lines.join("\n"))
  }).pipe(
    Effect.provide(readingLayer(from, configDir)),
    Effect.provide(NodeFileSystem.layer)
  )
