/**
 * `GET /api/sessions` (the list, from the metadata cache or the store's catalog),
 * `GET /api/sessions/usage`, and `GET /api/sessions/events`: server-sent events, a `changed`
 * each time the list may have changed (over a store: its clock moved; over a config directory
 * none, the page reads the list when it opens), a `reconnecting` when the Postgres store's
 * notifications were cut (its server restarted: the page says so until the next `changed`).
 */
import * as SessionListing from "@acx/claude-code/SessionListing"
import * as SessionStats from "@acx/claude-code/SessionStats"
import * as TranscriptStats from "@acx/claude-code/TranscriptStats"
import * as AcxHome from "@acx/environment/AcxHome"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as SessionList from "../SessionList.js"
import type * as UiApi from "../UiApi.js"
import type { UiContext } from "./context.js"
import { handled, shownJson } from "./http.js"
import { HEARTBEAT, PING, RETRY } from "./liveTranscripts.js"

const encoder = new TextEncoder()
const event = (type: UiApi.SessionsEvent["type"]) =>
  encoder.encode(`data: ${JSON.stringify({ type } satisfies UiApi.SessionsEvent)}\n\n`)
const EVENTS = { changed: event("changed"), reconnecting: event("reconnecting") }

export const sessionsRoutes = (context: UiContext) =>
  HttpRouter.empty.pipe(
    HttpRouter.get(
      "/api/sessions",
      handled(Effect.gen(function*() {
        const [listed, origins] = yield* Effect.all([
          context.projects.listSessions(),
          context.source.origins
        ], { concurrency: 2 })
        const sessions = SessionListing.rows(listed, origins)
        const body: UiApi.SessionsResponse = {
          configDir: context.configDir,
          projects: SessionList.projectRows(sessions),
          sessions,
          // only the listed sessions' (a viewer the store shows some sessions to sees their origins only)
          origins: SessionList.listedOrigins(sessions, origins)
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
        const folds = yield* context.source.foldStats({}, pricing)
        const result = SessionStats.reportStats(folds, "session")
        const body: UiApi.UsageResponse = {
          sessions: SessionList.usageRows(result.report),
          pricing: { source: result.pricing.source, date: result.pricing.date }
        }
        return yield* shownJson(body)
      }))
    ),
    HttpRouter.get(
      "/api/sessions/events",
      handled(Effect.sync(() =>
        HttpServerResponse.stream(
          Stream.make(RETRY).pipe(
            Stream.concat(
              // a burst of appends is a few readings of the list, never none after the last one:
              // one change waits while the last is sent, and sends are 300 ms apart at most
              context.source.listChanges.pipe(
                Stream.buffer({ capacity: 1, strategy: "sliding" }),
                Stream.tap(() => Effect.sleep("300 millis")),
                Stream.map((change) => EVENTS[change])
              )
            ),
            Stream.merge(Stream.tick(HEARTBEAT).pipe(Stream.as(PING)))
          ),
          { contentType: "text/event-stream", headers: { "cache-control": "no-store", "x-accel-buffering": "no" } }
        )
      ))
    )
  )
