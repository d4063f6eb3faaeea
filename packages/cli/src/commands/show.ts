/**
 * `acx show <id> [--format markdown|anthropic|jsonl]`: one session, as readable Markdown (full
 * history across compactions), as the Anthropic messages acx would store, or as its JSONL
 * entries re-serialised.
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as SessionExport from "@acx/claude-code/SessionExport"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { describeError, printable } from "../CliError.js"
import { configDirOption, findSession, followSymlinksOption, projectOption, projectsLayer } from "../internal/source.js"
import { writeStdout } from "../internal/stdout.js"

/**
 * The `<id>` argument every per-session command takes.
 *
 * @since 0.1.0
 * @category arguments
 */
export const sessionIdArg = Args.text({ name: "id" }).pipe(
  Args.withDescription("The session id, or a unique prefix of it (at least 4 characters)")
)

const formatOption = Options.choice("format", SessionExport.formats).pipe(
  Options.withAlias("f"),
  Options.withDescription(
    "markdown: the conversation for reading; anthropic: the messages acx stores in Acontext (JSON); jsonl: the entries"
  ),
  Options.withDefault("markdown" as const)
)

const thinkingOption = Options.boolean("no-thinking").pipe(
  Options.withDescription("Leave thinking blocks out (markdown and anthropic)")
)

/**
 * @since 0.1.0
 * @category commands
 */
export const show = Command.make(
  "show",
  {
    id: sessionIdArg,
    format: formatOption,
    project: projectOption,
    configDir: configDirOption,
    noThinking: thinkingOption,
    followSymlinks: followSymlinksOption
  },
  ({ configDir, followSymlinks, format, id, noThinking, project }) =>
    Effect.gen(function*() {
      const projects = yield* ClaudeProjects.ClaudeProjects
      const session = yield* findSession(projects, id, project)
      const { entries, errors, invalidUtf8Lines } = yield* projects.readSession(session.projectKey, session.sessionId)
      if (invalidUtf8Lines.length > 0) {
        yield* Console.error(
          `acx: warning: ${invalidUtf8Lines.length} line(s) not valid UTF-8 in ${
            printable(session.file)
          }, shown with U+FFFD in place of the bad bytes (first: line ${invalidUtf8Lines[0]})`
        )
      }
      if (errors.length > 0) {
        const first = errors[0]!
        yield* Console.error(
          `acx: warning: ${errors.length} malformed line(s) skipped in ${
            printable(session.file)
          } (first: line ${first.line}: ${describeError(first.description)})`
        )
      }
      const agents = format === "markdown"
        ? yield* projects.listSubagents(session.projectKey, session.sessionId)
        : []
      // written piece by piece: a session can be larger than the longest string V8 can build
      return yield* writeStdout(SessionExport.exportChunks(entries, {
        format,
        sessionId: session.sessionId,
        includeThinking: !noThinking,
        subagentIds: agents.map((agent) => agent.agentId)
      }))
    }).pipe(Effect.provide(projectsLayer(configDir, { followSymlinks })))
).pipe(Command.withDescription("Print one session as Markdown, Anthropic messages (JSON) or JSONL entries"))
