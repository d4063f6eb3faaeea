/**
 * What `acx fork` does (its options: `../fork.ts`): the fork is written into the config
 * directory, the session read there or (`--from`) from a session store, so a session Claude Code
 * deleted comes back resumable (`claude --resume <new id>`).
 *
 * @since 0.1.0
 */
import * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as format from "../../internal/format.js"
import { findSession, projectsLayer, storeSource } from "../../internal/source.js"
import type { ForkOptions } from "../args/fork.js"

/**
 * @since 0.1.0
 * @category handlers
 */
export const run = ({ at, configDir, followSymlinks, from, id, json, project, title }: ForkOptions) =>
  Effect.gen(function*() {
    // where the fork goes: always the config directory, which Claude Code resumes from
    const projects = yield* ClaudeProjects.ClaudeProjects
    const store = from === undefined ? undefined : yield* Effect.promise(storeSource)
    const opened = store === undefined || from === undefined ? undefined : yield* store.openStore(from)
    const source = store === undefined || opened === undefined ? projects : store.storeProjects(opened)
    const session = yield* findSession(source, id, project)
    const result = yield* projects.forkSession(session.projectKey, session.sessionId, {
      upToUuid: at,
      title,
      ...(opened === undefined ? {} : { from: source })
    })
    if (json) {
      return yield* Console.log(format.json({
        ...result,
        forkedFrom: session.sessionId,
        ...(opened === undefined ? {} : { from: opened.display })
      }))
    }
    yield* Console.log(
      `forked ${session.sessionId}${
        opened === undefined ? "" : ` from ${opened.display}`
      } → ${result.sessionId} (${result.entries} entries) in project ${result.projectKey}\n${result.file}\nresume it with: claude --resume ${result.sessionId}`
    )
  }).pipe(Effect.scoped, Effect.provide(projectsLayer(configDir, { followSymlinks })))
