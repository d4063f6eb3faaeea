/**
 * `acx sessions [--project P] [--json]`: the sessions of a Claude Code config directory, newest
 * first, with title (or first prompt), size, branch and cwd, read from the head and tail of each
 * transcript and cached under `$ACX_HOME/cache` (`@acx/claude-code/SessionIndex`).
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as Command from "@effect/cli/Command"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as format from "../internal/format.js"
import { configDirOption, followSymlinksOption, jsonOption, projectOption, projectsLayer } from "../internal/source.js"

/**
 * The sessions as a table (what `acx sessions` and `acx demo` print).
 *
 * @since 0.1.0
 * @category rendering
 */
export const sessionsTable = (sessions: ReadonlyArray<ClaudeProjects.SessionInfo>): string =>
  format.table(
    [
      { title: "SESSION" },
      { title: "PROJECT" },
      { title: "MODIFIED" },
      { title: "SIZE", align: "right" },
      { title: "TITLE / FIRST PROMPT" }
    ],
    sessions.map((session) => [
      session.sessionId,
      format.clip(session.projectKey, 40),
      format.date(session.mtime),
      format.bytes(session.size),
      format.clip(SessionMetadata.displayTitle(session) ?? "", 60)
    ])
  )

/**
 * @since 0.1.0
 * @category commands
 */
export const sessions = Command.make(
  "sessions",
  { configDir: configDirOption, project: projectOption, json: jsonOption, followSymlinks: followSymlinksOption },
  ({ configDir, followSymlinks, json, project }) =>
    Effect.gen(function*() {
      const projects = yield* ClaudeProjects.ClaudeProjects
      const list = (yield* projects.listSessions(Option.getOrUndefined(project))).sort((a, b) => b.mtime - a.mtime)
      if (json) return yield* Console.log(format.json(list))
      if (list.length === 0) return yield* Console.log(`no sessions in ${projects.projectsDir}`)
      yield* Console.log(sessionsTable(list))
    }).pipe(Effect.provide(projectsLayer(configDir, { followSymlinks })))
).pipe(Command.withDescription("List the sessions of a Claude Code config directory, newest first"))
