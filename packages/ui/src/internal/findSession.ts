/** A session found by the id in a request: only among the sessions the index lists. */
import type * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

// Claude Code names transcripts by UUID: anything else (a `../`, a slash, a dot) names nothing.
const ID_PATTERN = /^[0-9A-Za-z-]{4,64}$/

/**
 * The session whose id is `id`, or the only one whose id starts with it (at least 4
 * characters); none when the id is malformed, unknown or ambiguous. The file comes from the
 * listing, never from the request.
 */
export const findSession = (
  projects: ClaudeProjects.ClaudeProjects,
  id: string | undefined
): Effect.Effect<Option.Option<ClaudeProjects.SessionFile>, ClaudeProjects.ClaudeProjectsError> =>
  Effect.gen(function*() {
    if (id === undefined || !ID_PATTERN.test(id)) return Option.none()
    const files = yield* projects.listSessionFiles()
    const exact = files.find((file) => file.sessionId === id)
    if (exact !== undefined) return Option.some(exact)
    const prefixed = files.filter((file) => file.sessionId.startsWith(id))
    return prefixed.length === 1 ? Option.some(prefixed[0]!) : Option.none()
  })
