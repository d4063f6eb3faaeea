/**
 * `acx push <id> [--base-url U]`: one past session into Acontext (API key from
 * `ACONTEXT_API_KEY`), converted with the same rules as live `ClaudeAgentStorage`. Resumable: a
 * second push (or one after an interrupted push) stores only the messages not there yet.
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as ClaudePush from "@acx/claude-code/ClaudePush"
import * as AcontextClient from "@acx/storage/AcontextClient"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CliError from "../CliError.js"
import * as format from "../internal/format.js"
import { progress } from "../internal/progress.js"
import {
  acontextLayer,
  configDirOption,
  findSession,
  followSymlinksOption,
  jsonOption,
  projectOption,
  projectsLayer
} from "../internal/source.js"
import { sessionIdArg } from "./show.js"

const baseUrlOption = Options.text("base-url").pipe(
  Options.withDescription(
    `Acontext API base URL (default: $ACONTEXT_BASE_URL, else ${AcontextClient.DEFAULT_BASE_URL})`
  ),
  Options.optional
)

const thinkingOption = Options.boolean("thinking").pipe(
  Options.withDescription("Store thinking blocks too (as text)")
)

const sidechainsOption = Options.boolean("include-sidechains").pipe(
  Options.withDescription("Also push inline sidechain (old-layout subagent) messages")
)

/**
 * @since 0.1.0
 * @category commands
 */
export const push = Command.make(
  "push",
  {
    id: sessionIdArg,
    baseUrl: baseUrlOption,
    project: projectOption,
    configDir: configDirOption,
    thinking: thinkingOption,
    includeSidechains: sidechainsOption,
    json: jsonOption,
    followSymlinks: followSymlinksOption
  },
  ({ baseUrl, configDir, followSymlinks, id, includeSidechains, json, project, thinking }) =>
    Effect.gen(function*() {
      const key = process.env["ACONTEXT_API_KEY"]
      if (key === undefined || key.trim() === "") {
        return yield* CliError.invalidArgument("ACONTEXT_API_KEY is not set (the Acontext API key to push with)")
      }
      const url = Option.getOrElse(baseUrl, () => process.env["ACONTEXT_BASE_URL"] ?? AcontextClient.DEFAULT_BASE_URL)
      if (!/^https?:\/\//.test(url)) {
        return yield* CliError.invalidArgument(`--base-url must be http(s)://…, got ${url}`)
      }
      const projects = yield* ClaudeProjects.ClaudeProjects
      const session = yield* findSession(projects, id, project)
      const bar = progress("pushing", { enabled: !json, unit: "messages" })
      const result = yield* ClaudePush.pushSession({
        from: projects,
        projectKey: session.projectKey,
        sessionId: session.sessionId,
        includeThinking: thinking,
        includeSidechains,
        onProgress: (p) => bar.update(p.stored, p.total)
      }).pipe(
        Effect.ensuring(bar.clear),
        Effect.provide(acontextLayer({ apiKey: AcontextClient.apiKey(key.trim()), baseUrl: url }))
      )
      if (json) return yield* Console.log(format.json(result))
      yield* Console.log(
        `pushed ${result.sessionId} to ${url}: ${result.stored} message(s) stored, ${result.alreadyPresent} already there (${result.total} in the session)`
      )
      if (result.skippedLines > 0) {
        yield* Console.error(`acx: warning: ${result.skippedLines} malformed line(s) skipped`)
      }
    }).pipe(Effect.provide(projectsLayer(configDir, { followSymlinks })))
).pipe(Command.withDescription("Push one session to Acontext (resumable; ACONTEXT_API_KEY)"))
