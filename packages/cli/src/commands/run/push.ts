/**
 * What `acx push` does (its options: `../push.ts`).
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as ClaudePush from "@acx/claude-code/ClaudePush"
import { plural } from "@acx/convert/Plural"
import * as AcontextClient from "@acx/storage/AcontextClient"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import * as CliError from "../../CliError.js"
import { acontextLayer } from "../../internal/acontext.js"
import { CurrentIo } from "../../internal/currentIo.js"
import * as format from "../../internal/format.js"
import { progress } from "../../internal/progress.js"
import { findSession, projectsLayer } from "../../internal/source.js"
import type { PushOptions } from "../args/push.js"

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = (
  { baseUrl, configDir, followSymlinks, id, includeSidechains, json, newSession, project, thinking }: PushOptions
) =>
  Effect.gen(function*() {
    const io = yield* CurrentIo
    const key = io.env["ACONTEXT_API_KEY"]
    if (key === undefined || key.trim() === "") {
      return yield* CliError.invalidArgument("ACONTEXT_API_KEY is not set (the Acontext API key to push with)")
    }
    const url = baseUrl ?? io.env["ACONTEXT_BASE_URL"] ?? AcontextClient.DEFAULT_BASE_URL
    if (!/^https?:\/\//.test(url)) {
      return yield* CliError.invalidArgument(`--base-url must be http(s)://…, got ${url}`)
    }
    const projects = yield* ClaudeProjects.ClaudeProjects
    const session = yield* findSession(projects, id, project)
    const bar = progress("pushing", io, { enabled: !json, unit: "messages" })
    const result = yield* ClaudePush.pushSession({
      from: projects,
      projectKey: session.projectKey,
      sessionId: session.sessionId,
      targetSessionId: newSession ? randomUUID() : undefined,
      includeThinking: thinking,
      includeSidechains,
      onProgress: (p) => bar.update(p.stored, p.total)
    }).pipe(
      Effect.ensuring(bar.clear),
      Effect.provide(acontextLayer({ apiKey: AcontextClient.apiKey(key.trim()), baseUrl: url })),
      Effect.catchIf(
        (error) => error._tag === "ClaudePushError" && error.reason === "Diverged",
        (error) =>
          CliError.conflict(
            `${
              CliError.describeError(error)
            }; to push it anyway, into a new Acontext session: acx push ${session.sessionId} --new-session`
          )
      )
    )
    if (json) return yield* Console.log(format.json(result))
    const into = result.acontextSessionId === result.sessionId ? "" : ` as new session ${result.acontextSessionId}`
    yield* Console.log(
      `pushed ${result.sessionId} to ${url}${into}: ${
        plural(result.stored, "message")
      } stored, ${result.alreadyPresent} already there (${result.total} in the session)`
    )
    if (result.skippedLines > 0) {
      yield* Console.error(`acx: warning: ${plural(result.skippedLines, "malformed line")} skipped`)
    }
  }).pipe(Effect.provide(projectsLayer(configDir, { followSymlinks })))
