/**
 * `acx show <id> [--format markdown|anthropic|jsonl]`: one session, as readable Markdown (full
 * history across compactions), as the Anthropic messages acx would store, or as its JSONL
 * entries re-serialised.
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as ClaudePush from "@acx/claude-code/ClaudePush"
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as TranscriptMarkdown from "@acx/convert/TranscriptMarkdown"
import * as TranscriptWrite from "@acx/convert/TranscriptWrite"
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { describeError, printable } from "../CliError.js"
import { configDirOption, findSession, followSymlinksOption, projectOption, projectsLayer } from "../internal/source.js"
import { jsonArrayLines, writeStdout } from "../internal/stdout.js"

/**
 * The `<id>` argument every per-session command takes.
 *
 * @since 0.1.0
 * @category arguments
 */
export const sessionIdArg = Args.text({ name: "id" }).pipe(
  Args.withDescription("The session id, or a unique prefix of it (at least 4 characters)")
)

const formatOption = Options.choice("format", ["markdown", "anthropic", "jsonl"]).pipe(
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
      const { entries, errors } = yield* projects.readSession(session.projectKey, session.sessionId)
      if (errors.length > 0) {
        const first = errors[0]!
        yield* Console.error(
          `acx: warning: ${errors.length} malformed line(s) skipped in ${
            printable(session.file)
          } (first: line ${first.line}: ${describeError(first.description)})`
        )
      }
      // Written piece by piece: a session can be larger than the longest string V8 can build.
      switch (format) {
        case "markdown": {
          const agents = yield* projects.listSubagents(session.projectKey, session.sessionId)
          const sections = TranscriptMarkdown.markdownSections(entries, {
            title: SessionMetadata.displayTitle(SessionMetadata.sessionMetadata(entries)) ?? session.sessionId,
            includeThinking: !noThinking
          })
          const footer = agents.length === 0
            ? ""
            : `\n---\n\n*${agents.length} subagent transcript(s): ${agents.map((agent) => agent.agentId).join(", ")}*\n`
          return yield* writeStdout(function*() {
            for (let i = 0; i < sections.length; i++) yield i === 0 ? sections[i]! : `\n\n${sections[i]!}`
            yield `\n${footer}\n`
          }())
        }
        case "anthropic": {
          // exactly what `acx push` would store, in the same order
          const blobs = ClaudePush.sessionBlobs(entries, { includeThinking: !noThinking })
          return yield* writeStdout(
            jsonArrayLines(blobs.map(({ blob, meta }) => (meta === null ? blob : { ...blob, meta })))
          )
        }
        case "jsonl":
          return yield* writeStdout(entries.map((entry) => `${TranscriptWrite.serializeEntry(entry)}\n`))
      }
    }).pipe(Effect.provide(projectsLayer(configDir, { followSymlinks })))
).pipe(Command.withDescription("Print one session as Markdown, Anthropic messages (JSON) or JSONL entries"))
