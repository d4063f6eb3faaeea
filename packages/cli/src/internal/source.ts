/**
 * Where sessions are read from: a Claude Code config directory (`--config-dir`, else
 * `$CLAUDE_CONFIG_DIR`, else `~/.claude`), and how a session is found by id or id prefix.
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import { encodeProjectDir } from "@acx/convert/ProjectDir"
import * as AcontextClient from "@acx/storage/AcontextClient"
import * as Options from "@effect/cli/Options"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as path from "node:path"
import * as CliError from "../CliError.js"

export const configDirOption = Options.text("config-dir").pipe(
  Options.withDescription("Claude Code config directory (default: $CLAUDE_CONFIG_DIR, else ~/.claude)"),
  Options.optional
)

// An absolute path names the project it was the working directory of (Claude Code's encoding),
// so `--project "$PWD"` works; anything else is the directory name itself.
export const projectOption = Options.text("project").pipe(
  Options.withAlias("p"),
  Options.withDescription(
    "Only this project: its directory name under <config-dir>/projects, or the absolute path it was run in"
  ),
  Options.optional,
  Options.map(Option.map((value) => (path.isAbsolute(value) ? encodeProjectDir(value) : value)))
)

export const jsonOption = Options.boolean("json").pipe(Options.withDescription("Print JSON for scripts"))

// ClaudeProjects expands a leading `~`.
export const projectsLayer = (configDir: Option.Option<string>): Layer.Layer<ClaudeProjects.ClaudeProjects> =>
  ClaudeProjects.layerNode({
    configDir: Option.getOrElse(configDir, () => process.env["CLAUDE_CONFIG_DIR"] ?? "~/.claude")
  })

/** acx's Acontext client on Node's undici HTTP client. */
export const acontextLayer = (
  options: AcontextClient.AcontextClientOptions
): Layer.Layer<AcontextClient.AcontextClient> =>
  AcontextClient.layer(options).pipe(Layer.provide(NodeHttpClient.layerUndici))

const ID_PREFIX = /^[0-9a-f][0-9a-f-]{3,35}$/i

/**
 * The one session whose id is `id` or starts with it (at least 4 characters), in `projectKey`
 * or in any project. Anything that is not (a prefix of) a UUID is refused before touching the
 * file system, so ids like `../../x` cannot name a path.
 */
export const findSession = (
  projects: ClaudeProjects.ClaudeProjects,
  id: string,
  projectKey: Option.Option<string>
): Effect.Effect<ClaudeProjects.SessionFile, CliError.CliError | ClaudeProjects.ClaudeProjectsError> =>
  Effect.gen(function*() {
    if (!ID_PREFIX.test(id)) {
      return yield* CliError.invalidArgument(`not a session id: ${JSON.stringify(id)} (expected a UUID or its prefix)`)
    }
    const wanted = id.toLowerCase()
    const sessions = yield* projects.listSessionFiles(Option.getOrUndefined(projectKey))
    const exact = sessions.filter((session) => session.sessionId.toLowerCase() === wanted)
    const matches = exact.length > 0
      ? exact
      : sessions.filter((session) => session.sessionId.toLowerCase().startsWith(wanted))
    if (matches.length === 1) return matches[0]!
    const where = Option.match(projectKey, {
      onNone: () => projects.projectsDir,
      onSome: (key) => `project ${key}`
    })
    if (matches.length === 0) return yield* CliError.notFound(`no session ${id} in ${where}`)
    const names = matches.slice(0, 5).map((session) => `${session.projectKey}/${session.sessionId}`).join(", ")
    return yield* CliError.ambiguous(
      `${id} matches ${matches.length} sessions (${names}); pass the full id or --project`
    )
  })

/** The main transcript's entries plus every subagent's, for statistics. */
export const readWithSubagents = (
  projects: ClaudeProjects.ClaudeProjects,
  session: ClaudeProjects.SessionFile
) =>
  Effect.gen(function*() {
    const main = yield* projects.readSession(session.projectKey, session.sessionId)
    const subagents = yield* projects.readSubagents(session.projectKey, session.sessionId)
    return {
      main,
      entries: [...main.entries, ...subagents.flatMap((read) => read.entries)],
      errors: main.errors.length + subagents.reduce((sum, read) => sum + read.errors.length, 0)
    }
  })
