/** A session found by the id in a request: only among the sessions the index lists. */
import type * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as SessionIdLookup from "@acx/environment/SessionIdLookup"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/**
 * The session whose id is `id`, or the only one whose id starts with it (`SessionIdLookup`: at
 * least 4 characters, any case); none when the id is malformed, unknown or ambiguous. A
 * malformed id (`../`, a slash, a dot) lists nothing. The file comes from the listing, never
 * from the request.
 */
export const findSession = (
  projects: ClaudeProjects.ClaudeProjects,
  id: string | undefined
): Effect.Effect<Option.Option<ClaudeProjects.SessionFile>, ClaudeProjects.ClaudeProjectsError> =>
  Effect.gen(function*() {
    if (id === undefined || !SessionIdLookup.isWellFormed(id)) return Option.none()
    const found = SessionIdLookup.lookup(yield* projects.listSessionFiles(), (file) => file.sessionId, id)
    return found._tag === "Found" ? Option.some(found.value) : Option.none()
  })
