/**
 * Where each session of the statistics came from, so that `acx stats --by project|machine|user`
 * and the web page's costs group by who and what a team means, not by Claude Code's path key:
 *
 * - over a store, the origins `acx sync` / `acx import` recorded (`SessionOrigins.listOrigins`);
 *   a session without one (written by the SDK, or by an acx before origins) has none, and counts
 *   under the `unknown` machine and user and its project key (`StatsReport.originKey`);
 * - over a config directory, every session is this machine's (the hostname made into a machine
 *   name, as `acx sync` records it, and the OS user) and its project is
 *   `ProjectOrigin.projectOf` its working directory.
 *
 * So a directory and the store it was synced into from this machine give the same rows.
 *
 * @since 0.3.0
 */
import type * as StatsReport from "@acx/convert/StatsReport"
import * as SessionOrigins from "@acx/session-store/SessionOrigins"
import type * as SessionStore from "@acx/session-store/SessionStore"
import * as Effect from "effect/Effect"
import type * as ClaudeProjects from "./ClaudeProjects.js"
import * as ProjectOrigin from "./ProjectOrigin.js"
import type * as StatsOutput from "./StatsOutput.js"
import * as StoreProjects from "./StoreProjects.js"

/**
 * Origins by session (`SessionOrigins.originKey`: `projectKey/sessionId`).
 *
 * @since 0.3.0
 * @category models
 */
export type Origins = ReadonlyMap<string, StatsReport.Origin>

/**
 * The origins a store recorded (of one project's sessions, or all); none for a store that keeps
 * no origins.
 *
 * @since 0.3.0
 * @category origins
 */
export const ofStore = (
  store: SessionStore.SessionStore,
  projectKey?: string
): Effect.Effect<Origins, ClaudeProjects.ClaudeProjectsError> => {
  const origins = SessionOrigins.originsOf(store)
  if (origins === undefined) return Effect.succeed(new Map())
  return origins.listOrigins(projectKey).pipe(
    Effect.map((rows) =>
      new Map(
        rows.map((
          row
        ) => [SessionOrigins.originKey(row), { machine: row.machine, user: row.user, project: row.project }])
      )
    ),
    Effect.mapError(StoreProjects.storeError("listOrigins"))
  )
}

/**
 * The origins of a config directory's sessions (of one project, or all): this machine and user
 * (`ProjectOrigin.localOrigin`, the hostname made a machine name), each session's project from
 * its working directory.
 *
 * @since 0.3.0
 * @category origins
 */
export const ofProjects = (
  projects: ClaudeProjects.ClaudeProjects,
  projectKey?: string,
  local: ProjectOrigin.Origin = ProjectOrigin.localOrigin()
): Effect.Effect<Origins, ClaudeProjects.ClaudeProjectsError> =>
  Effect.map(projects.listSessions(projectKey), (sessions) => ProjectOrigin.originsOfSessions(sessions, local))

/**
 * The folds with each file's origin set from `origins` (a file whose session has none keeps none).
 *
 * @since 0.3.0
 * @category origins
 */
export const withOrigins = (folds: StatsOutput.StatsFolds, origins: Origins): StatsOutput.StatsFolds => ({
  ...folds,
  run: {
    ...folds.run,
    folds: folds.run.folds.map((file) => {
      const origin = origins.get(SessionOrigins.originKey(file))
      return origin === undefined ? file : { ...file, origin }
    })
  }
})
