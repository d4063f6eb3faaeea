/** `GET /api/sessions` (the list, from the metadata cache) and `GET /api/sessions/usage`. */
import * as SessionListing from "@acx/claude-code/SessionListing"
import * as SessionStats from "@acx/claude-code/SessionStats"
import * as TranscriptStats from "@acx/claude-code/TranscriptStats"
import * as AcxHome from "@acx/environment/AcxHome"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as Effect from "effect/Effect"
import * as SessionList from "../SessionList.js"
import type * as UiApi from "../UiApi.js"
import type { UiContext } from "./context.js"
import { handled, shownJson } from "./http.js"

export const sessionsRoutes = (context: UiContext) =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      "/api/sessions",
      handled(Effect.gen(function*() {
        const listed = yield* context.projects.listSessions()
        const sessions = SessionListing.rows(listed)
        const body: UiApi.SessionsResponse = {
          configDir: context.configDir,
          projects: SessionList.projectRows(sessions),
          sessions
        }
        // every field of every row (title, prompts, cwd, project, branch) through the mask
        return yield* shownJson(body)
      }))
    ),
    HttpRouter.get(
      "/api/sessions/usage",
      handled(Effect.gen(function*() {
        // priced and cached under the server's ACX_HOME, as the costs page and acx stats do
        const pricing = yield* TranscriptStats.loadPricing(AcxHome.paths(context.acxHome).pricing)
        const folds = yield* SessionStats.foldStats(context.projects, undefined, {
          pricing,
          cacheDir: AcxHome.paths(context.acxHome).cache
        })
        const result = SessionStats.reportStats(folds, "session")
        const body: UiApi.UsageResponse = {
          sessions: SessionList.usageRows(result.report),
          pricing: { source: result.pricing.source, date: result.pricing.date }
        }
        return yield* shownJson(body)
      }))
    )
  )
