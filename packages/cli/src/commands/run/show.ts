/**
 * What `acx show` does (its options: `../show.ts`).
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as ClaudePush from "@acx/claude-code/ClaudePush"
import * as SessionMetadata from "@acx/convert/SessionMetadata"
import * as TranscriptMarkdown from "@acx/convert/TranscriptMarkdown"
import * as TranscriptWrite from "@acx/convert/TranscriptWrite"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { describeError, printable } from "../../CliError.js"
import { findSession, projectsLayer } from "../../internal/source.js"
import { jsonArrayLines, writeStdout } from "../../internal/stdout.js"
import type { ShowArgs } from "../show.js"

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = ({ configDir, followSymlinks, format, id, noThinking, project }: ShowArgs) =>
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
