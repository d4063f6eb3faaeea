/**
 * What `acx show` does (its options: `../show.ts`).
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as SessionExport from "@acx/claude-code/SessionExport"
import { plural } from "@acx/convert/Plural"
import * as TerminalText from "@acx/convert/TerminalText"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { describeError, printable } from "../../CliError.js"
import { findTranscript } from "../../internal/findTranscript.js"
import { readingLayer } from "../../internal/source.js"
import { writeStdout } from "../../internal/stdout.js"
import type { ShowOptions } from "../args/show.js"

// "Subagent a881341 (Explore: what it was asked) of session 258c7280-…"
const subagentTitle = (agent: ClaudeProjects.SubagentInfo, sessionId: string): string => {
  const type = agent.meta?.["agentType"]
  const description = agent.meta?.["description"]
  const about = [typeof type === "string" ? type : undefined, typeof description === "string" ? description : undefined]
    .filter((part) => part !== undefined && part !== "").join(": ")
  return `Subagent ${agent.agentId}${about === "" ? "" : ` (${about})`} of session ${sessionId}`
}

function* mapChunks(f: (chunk: string) => string, chunks: Iterable<string>): Iterable<string> {
  for (const chunk of chunks) yield f(chunk)
}

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = (
  { agent, configDir, followSymlinks, format, from, id, noMask, noThinking, project, uuids }: ShowOptions
) =>
  Effect.gen(function*() {
    const projects = yield* ClaudeProjects.ClaudeProjects
    const found = yield* findTranscript(projects, id, project, agent)
    const { session } = found
    const file = found.agent?.file ?? session.file
    const { entries, errorOffsets, errors, invalidUtf8Lines } = found.agent === undefined
      ? yield* projects.readSession(session.projectKey, session.sessionId)
      : yield* projects.readSubagent(session.projectKey, session.sessionId, found.agent.agentId)
    if (invalidUtf8Lines.length > 0) {
      yield* Console.error(
        `acx: warning: ${plural(invalidUtf8Lines.length, "line")} not valid UTF-8 in ${
          printable(file)
        }, shown with U+FFFD in place of the bad bytes (first: line ${invalidUtf8Lines[0]})`
      )
    }
    if (errors.length > 0) {
      const first = errors[0]!
      yield* Console.error(
        `acx: warning: ${plural(errors.length, "malformed line")} skipped in ${
          printable(file)
        } (first: line ${first.line} at byte ${errorOffsets[0]}: ${describeError(first.description)})`
      )
    }
    const agents = format === "markdown" && found.agent === undefined
      ? yield* projects.listSubagents(session.projectKey, session.sessionId)
      : []
    // written piece by piece: a session can be larger than the longest string V8 can build; a
    // transcript's control characters are shown, never sent (`TerminalText.lines`)
    return yield* writeStdout(mapChunks(
      TerminalText.lines,
      SessionExport.exportChunks(entries, {
        format,
        sessionId: session.sessionId,
        includeThinking: !noThinking,
        subagentIds: agents.map((info) => info.agentId),
        uuids,
        mask: !noMask,
        ...(found.agent === undefined ? {} : { subagent: true, title: subagentTitle(found.agent, session.sessionId) })
      })
    ))
  }).pipe(Effect.provide(readingLayer(from, configDir, { followSymlinks })))
