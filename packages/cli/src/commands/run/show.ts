/**
 * What `acx show` does (its options: `../show.ts`).
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as SessionExport from "@acx/claude-code/SessionExport"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { describeError, printable } from "../../CliError.js"
import { findSession, projectsLayer } from "../../internal/source.js"
import { writeStdout } from "../../internal/stdout.js"
import type { ShowArgs } from "../show.js"

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = ({ configDir, followSymlinks, format, id, noThinking, project }: ShowArgs) =>
  Effect.gen(function*() {
    const projects = yield* ClaudeProjects.ClaudeProjects
    const session = yield* findSession(projects, id, project)
    const { entries, errorOffsets, errors, invalidUtf8Lines } = yield* projects.readSession(
      session.projectKey,
      session.sessionId
    )
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
        } (first: line ${first.line} at byte ${errorOffsets[0]}: ${describeError(first.description)})`
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
