/**
 * `GET /api/costs?since=YYYY-MM-DD&until=YYYY-MM-DD` (both optional, parsed as `acx stats` parses
 * them): the costs page's figures, every grouping from one fold of the transcripts.
 * `GET /api/costs/now`: the active 5-hour window and the recorded quota readings (the "now"
 * panel and the quota chart).
 */
import * as BlockStats from "@acx/claude-code/BlockStats"
import * as SessionListing from "@acx/claude-code/SessionListing"
import * as SessionStats from "@acx/claude-code/SessionStats"
import * as StatsOrigins from "@acx/claude-code/StatsOrigins"
import * as TranscriptStats from "@acx/claude-code/TranscriptStats"
import * as StatsReport from "@acx/convert/StatsReport"
import * as AcxHome from "@acx/environment/AcxHome"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as Effect from "effect/Effect"
import * as CostsView from "../CostsView.js"
import * as SecretMask from "../SecretMask.js"
import * as SessionList from "../SessionList.js"
import type { UiContext } from "./context.js"
import { handled, problem, searchParams, shownJson } from "./http.js"

// an empty field of the page's form means no bound
const bound = (params: URLSearchParams, name: string): string | undefined => {
  const value = params.get(name)
  return value === null || value.trim() === "" ? undefined : value
}

// What `/api/costs` computed last, and from what: the folds (the same object while no session
// changed: `StoreStats`' memo over a catalog that keeps its list), the origins, the request's
// range and mask. The body is a function of these alone; its reports are most of its time.
interface Kept {
  readonly folds: SessionStats.StatsFolds
  readonly key: string
  readonly body: CostsView.CostsResponse
}

const originsKey = (origins: StatsOrigins.Origins): string => {
  const parts: Array<string> = []
  for (const [session, origin] of origins) parts.push(session, origin.machine, origin.user, origin.project)
  return JSON.stringify(parts)
}

export const costsRoutes = (context: UiContext) => {
  let kept: Kept | undefined
  return HttpRouter.empty.pipe(
    HttpRouter.get(
      "/api/costs",
      handled(
        Effect.gen(function*() {
          const params = yield* searchParams
          const parsed = StatsReport.parseDayRange(bound(params, "since"), bound(params, "until"))
          if (parsed._tag !== "Range") return problem(400, StatsReport.dayRangeMessage(parsed))
          const range = parsed.range
          const pricing = yield* TranscriptStats.loadPricing(AcxHome.paths(context.acxHome).pricing)
          // one fold (cached under $ACX_HOME/cache, as acx stats), several groupings of it
          const [unplaced, listed, origins] = yield* Effect.all([
            context.source.foldStats({}, pricing),
            context.projects.listSessions(),
            context.source.origins
          ], { concurrency: 3 })
          const masked = SecretMask.maskingOn(params)
          const key = JSON.stringify([range.since, range.until, masked, originsKey(origins)])
          if (kept !== undefined && kept.folds === unplaced && kept.key === key) return yield* shownJson(kept.body)
          // projects, machines and users by where each session came from (as acx stats --by)
          const folds = StatsOrigins.withOrigins(unplaced, origins)
          const rows = SessionListing.rows(listed)
          const projects = SessionList.projectRows(rows)
          const day = SessionStats.reportStats(folds, "day", range)
          const body: CostsView.CostsResponse = {
            day: SessionStats.statsJson(day),
            series: CostsView.daySeries(day.report.rows, range),
            projects: CostsView.projectCosts(SessionStats.reportStats(folds, "project", range).report, projects),
            machines: CostsView.originCosts(SessionStats.reportStats(folds, "machine", range).report),
            users: CostsView.originCosts(SessionStats.reportStats(folds, "user", range).report),
            sessions: CostsView.topSessions(
              SessionStats.reportStats(folds, "session", range).report,
              SessionStats.reportStats(folds, "session").report,
              rows,
              projects,
              masked ? SecretMask.maskText : (text) => text
            )
          }
          kept = { folds: unplaced, key, body }
          // the session titles, the project names (from cwds): everything through the mask
          return yield* shownJson(body)
        }).pipe(Effect.withSpan("costsRoutes.costs"))
      )
    ),
    HttpRouter.get(
      "/api/costs/now",
      handled(
        Effect.gen(function*() {
          const pricing = yield* TranscriptStats.loadPricing(AcxHome.paths(context.acxHome).pricing)
          const folds = yield* context.source.foldStats({}, pricing)
          // numbers and two window names only: nothing of the file is shown as it is
          const { readings } = BlockStats.readReadings(AcxHome.paths(context.acxHome).quotaReadings)
          const report = BlockStats.blockReport(folds, { range: {}, nowMs: Date.now(), readings: [] })
          const body: CostsView.NowResponse = CostsView.nowResponse(report, readings)
          return yield* shownJson(body)
        }).pipe(Effect.withSpan("costsRoutes.now"))
      )
    )
  )
}
