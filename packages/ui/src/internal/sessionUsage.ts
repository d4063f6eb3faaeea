/**
 * `GET /api/sessions/usage`'s answer from the folds of every session (the folds `acx stats`
 * reads): each session's figure, the outliers flagged, and the prices used.
 */
import * as SessionStats from "@acx/claude-code/SessionStats"
import * as TranscriptStats from "@acx/claude-code/TranscriptStats"
import * as AcxHome from "@acx/environment/AcxHome"
import * as Effect from "effect/Effect"
import * as SecretMask from "../SecretMask.js"
import * as SessionList from "../SessionList.js"
import type * as UiApi from "../UiApi.js"
import type { TranscriptSource } from "./transcriptSource.js"

/** The answer of `folds`. */
export const usageOf = (folds: SessionStats.StatsFolds): UiApi.UsageResponse => {
  const result = SessionStats.reportStats(folds, "session")
  return {
    sessions: SessionList.usageRows(result.report),
    pricing: { source: result.pricing.source, date: result.pricing.date }
  }
}

/**
 * The response's JSON text: every string masked unless `masked` is false (20 000 rows masked and
 * written where they were folded, in a worker over a config directory).
 */
export const usageJson = (usage: UiApi.UsageResponse, masked: boolean): string =>
  JSON.stringify(SecretMask.shown(masked)(usage))

/** Every session's usage from `foldStats`, priced and cached under `acxHome`, as the costs page and acx stats do. */
export const foldedUsage = (
  foldStats: TranscriptSource["foldStats"],
  acxHome: string
): Effect.Effect<UiApi.UsageResponse, unknown> =>
  Effect.gen(function*() {
    const pricing = yield* TranscriptStats.loadPricing(AcxHome.paths(acxHome).pricing)
    return usageOf(yield* foldStats({}, pricing))
  })
