/**
 * The origins an import records (`@acx/session-store/SessionOrigins`): for each imported session
 * without one, the machine and user importing it and its project across machines
 * (`ProjectOrigin.projectOf` of its working directory, read once per directory; the project key
 * when the transcript names none). A session that already has one keeps it: the first machine to
 * sync a session is where it came from.
 *
 * @internal
 */
import * as SessionOrigins from "@acx/session-store/SessionOrigins"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as Effect from "effect/Effect"
import type * as ClaudeProjects from "../ClaudeProjects.js"
import * as ProjectOrigin from "../ProjectOrigin.js"

/** Records the origins of the `imported` sessions that have none; how many were recorded. */
export const recordOrigins = (
  store: SessionStore.SessionStore,
  source: ClaudeProjects.ClaudeProjects,
  origin: ProjectOrigin.Origin,
  imported: ReadonlyArray<{ readonly projectKey: string; readonly sessionId: string }>,
  projectKey: string | undefined
): Effect.Effect<number, SessionStore.SessionStoreError | ClaudeProjects.ClaudeProjectsError> =>
  Effect.gen(function*() {
    const origins = SessionOrigins.originsOf(store)
    if (origins === undefined || imported.length === 0) return 0
    // the imported sessions' only: on a hub, not every other machine's too
    const known = new Set((yield* origins.listOrigins(projectKey, imported)).map(SessionOrigins.originKey))
    const missing = new Set(
      imported.map(SessionOrigins.originKey).filter((key) => !known.has(key))
    )
    if (missing.size === 0) return 0
    // the working directories from the listing's cached metadata, only when something is missing
    const sessions = (yield* source.listSessions(projectKey)).filter((session) =>
      missing.has(SessionOrigins.originKey(session))
    )
    const projects = yield* ProjectOrigin.projectsOf(sessions)
    const rows = sessions.map((session): SessionOrigins.SessionOrigin => ({
      projectKey: session.projectKey,
      sessionId: session.sessionId,
      machine: origin.machine,
      user: origin.user,
      project: projects.get(SessionOrigins.originKey(session)) ?? session.projectKey
    }))
    return yield* origins.recordOrigins(rows)
  })

/**
 * The ledger source of an import from `path` on `origin`'s machine, the records an older acx kept
 * under the path alone adopted first (once: see `SessionOrigins.adoptSource`).
 */
export const ledgerSource = (
  store: SessionStore.SessionStore,
  origin: ProjectOrigin.Origin | undefined,
  path: string
): Effect.Effect<string, SessionStore.SessionStoreError> =>
  Effect.gen(function*() {
    if (origin === undefined) return path
    const source = SessionOrigins.sourceOf(origin.machine, path)
    const origins = SessionOrigins.originsOf(store)
    if (origins !== undefined) yield* origins.adoptSource(path, source)
    return source
  })
