/**
 * What `acx fork` does (its options: `../fork.ts`).
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as format from "../../internal/format.js"
import { findSession, projectsLayer } from "../../internal/source.js"
import type { ForkArgs } from "../args/fork.js"

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = ({ at, configDir, followSymlinks, id, json, project, title }: ForkArgs) =>
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
