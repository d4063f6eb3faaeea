/** `GET /api/sessions` (the list, from the metadata cache) and `GET /api/sessions/usage`. */
import * as SessionStats from "@acx/claude-code/SessionStats"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as Effect from "effect/Effect"
import * as SessionList from "../SessionList.js"
import type * as UiApi from "../UiApi.js"
import type { UiContext } from "./context.js"
import { handled, json } from "./http.js"

export const sessionsRoutes = (context: UiContext) =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      "/api/sessions",
      handled(Effect.gen(function*() {
        const listed = yield* context.projects.listSessions()
        const sessions = SessionList.sessionRows(listed)
        const body: UiApi.SessionsResponse = {
          configDir: context.configDir,
          projects: SessionList.projectRows(sessions),
          sessions
        }
        return json(body)
      }))
    ),
    HttpRouter.get(
      "/api/sessions/usage",
      handled(Effect.gen(function*() {
        const result = yield* SessionStats.collectStats(context.projects, undefined, { by: "session" })
        const body: UiApi.UsageResponse = {
          sessions: SessionList.usageRows(result.report),
          pricing: { source: result.pricing.source, date: result.pricing.date }
        }
        return json(body)
      }))
    )
  )
