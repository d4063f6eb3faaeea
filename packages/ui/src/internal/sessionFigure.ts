/**
 * A session's figure (its subagents included) for the session page's header: the same cached
 * fold and the same report row as `acx stats`, the sessions list and the costs page, so the four
 * agree (the page used to add up its own per-turn items: inline sidechain turns and subagent
 * transcripts were left out).
 */
import type * as ClaudeProjects from "@acx/claude-code/ClaudeProjects"
import * as SessionStats from "@acx/claude-code/SessionStats"
import type * as Pricing from "@acx/convert/Pricing"
import * as Effect from "effect/Effect"
import * as SessionList from "../SessionList.js"
import type * as UiApi from "../UiApi.js"
import type { TranscriptSource } from "./transcriptSource.js"

/** The figure of `session`, priced with `pricing`, folded through the source's cache (`$ACX_HOME/cache`). */
export const sessionFigure = (
  source: TranscriptSource,
  session: ClaudeProjects.SessionFile,
  pricing: Pricing.PricingTable
) =>
  Effect.map(
    source.foldStats({ projectKey: session.projectKey, sessionId: session.sessionId }, pricing),
    (folds): UiApi.SessionFigure =>
      SessionList.figureOf(
        SessionStats.reportStats(folds, "session").report.rows.find((row) => row.key === session.sessionId)
      )
  ).pipe(Effect.withSpan("sessionFigure"))
