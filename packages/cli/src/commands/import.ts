/**
 * `acx import [--from DIR] --to sqlite:FILE|postgres://URL [--project P]`: every session of a
 * Claude Code config directory (main and subagent transcripts) into a SessionStore. Idempotent:
 * entries already there (same uuid under the same key, or, without a uuid, an equal entry) are
 * not stored twice.
 *
 * @since 0.1.0
 */
import * as ClaudeImport from "@acx/claude-code/ClaudeImport"
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as SessionStore from "@acx/session-store/SessionStore"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliError from "../CliError.js"
import * as format from "../internal/format.js"
import { progress } from "../internal/progress.js"
import { followSymlinksOption, jsonOption, projectOption, projectsLayer } from "../internal/source.js"
import { parseTarget } from "../internal/target.js"

const fromOption = Options.text("from").pipe(
  Options.withDescription("Claude Code config directory to read (default: $CLAUDE_CONFIG_DIR, else ~/.claude)"),
  Options.optional
)

const toOption = Options.text("to").pipe(
  Options.withDescription(
    "The SessionStore: sqlite:FILE (created if missing) or postgres://user:pass@host/db[?schema=S]"
  )
)

const batchOption = Options.integer("batch-size").pipe(
  Options.withDescription("Entries per append"),
  Options.withDefault(500)
)

/**
 * @since 0.1.0
 * @category commands
 */
export const importCommand = Command.make(
  "import",
  {
    from: fromOption,
    to: toOption,
    project: projectOption,
    batchSize: batchOption,
    json: jsonOption,
    followSymlinks: followSymlinksOption
  },
  ({ batchSize, followSymlinks, from, json, project, to }) =>
    Effect.gen(function*() {
      if (batchSize < 1) return yield* CliError.invalidArgument("--batch-size must be at least 1")
      const target = yield* parseTarget(to)
      const projects = yield* ClaudeProjects.ClaudeProjects
      const projectKey = Option.getOrUndefined(project)
      const total = (yield* projects.listSessionFiles(projectKey)).length
      const bar = progress("importing", { enabled: !json, unit: "sessions" })
      const started = Date.now()
      const result = yield* Effect.gen(function*() {
        const store = yield* SessionStore.SessionStore
        return yield* ClaudeImport.importClaudeDir({
          from: projects,
          to: store,
          projectKey,
          batchSize,
          onProgress: (p) => bar.update(p.sessions, total)
        })
      }).pipe(Effect.provide(target.layer), Effect.ensuring(bar.clear))
      const seconds = (Date.now() - started) / 1000
      if (json) return yield* Console.log(format.json({ ...result, target: target.display, seconds }))
      yield* Console.log(
        `imported ${result.sessions} session(s), ${result.subagents} subagent transcript(s), ${result.entries} entries into ${target.display} in ${
          seconds.toFixed(1)
        }s`
      )
      if (result.skippedLines > 0) {
        yield* Console.error(`acx: warning: ${result.skippedLines} malformed line(s) skipped (not entries)`)
      }
    }).pipe(Effect.provide(projectsLayer(from, { followSymlinks })), Effect.provide(NodeContext.layer))
).pipe(Command.withDescription("Import every session of a Claude Code config directory into SQLite or Postgres"))
