/**
 * `acx fork <id> [--at UUID] [--title T]`: a new session in the same project holding the
 * conversation up to a chosen message, with fresh uuids and a remapped parent chain (as the
 * SDK's `forkSession` does), resumable with `claude --resume <new id>`.
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as format from "../internal/format.js"
import {
  configDirOption,
  findSession,
  followSymlinksOption,
  jsonOption,
  projectOption,
  projectsLayer
} from "../internal/source.js"
import { sessionIdArg } from "./show.js"

const atOption = Options.text("at").pipe(
  Options.withDescription("The uuid of the last message to keep (default: the whole conversation)"),
  Options.optional
)

const titleOption = Options.text("title").pipe(
  Options.withDescription("The fork's title (default: the original title + \" (fork)\")"),
  Options.optional
)

/**
 * @since 0.1.0
 * @category commands
 */
export const fork = Command.make(
  "fork",
  {
    id: sessionIdArg,
    at: atOption,
    title: titleOption,
    project: projectOption,
    configDir: configDirOption,
    json: jsonOption,
    followSymlinks: followSymlinksOption
  },
  ({ at, configDir, followSymlinks, id, json, project, title }) =>
    Effect.gen(function*() {
      const projects = yield* ClaudeProjects.ClaudeProjects
      const session = yield* findSession(projects, id, project)
      const result = yield* projects.forkSession(session.projectKey, session.sessionId, {
        upToUuid: Option.getOrUndefined(at),
        title: Option.getOrUndefined(title)
      })
      if (json) return yield* Console.log(format.json({ ...result, forkedFrom: session.sessionId }))
      yield* Console.log(
        `forked ${session.sessionId} → ${result.sessionId} (${result.entries} entries) in project ${result.projectKey}\n${result.file}`
      )
    }).pipe(Effect.provide(projectsLayer(configDir, { followSymlinks })))
).pipe(Command.withDescription("Fork a session up to a message into a new session (fresh uuids, remapped chain)"))
