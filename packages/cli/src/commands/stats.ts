/**
 * `acx stats [--by session|day|week|month|model|project|block] [--live] [--since D] [--until D]
 * [--project P] [--json]`: tokens and US dollars per row and per model, messages, tool calls, active time and
 * wall span, subagents and compactions; subagent transcripts included, each API message counted
 * once (its last fragment). Days are local days (the time zone of the process, as ccusage).
 * Transcripts are folded on every core and cached under `$ACX_HOME/cache`. `--by block`: 5-hour
 * billing windows with burn rate and quota readings (`run/statsBlocks.ts`), `--live` redraws them.
 * What it does: `run/stats.ts`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import { lazyHandler } from "../internal/lazyHandler.js"
import * as StatsOptions from "./args/stats.js"

/**
 * @since 0.1.0
 * @category commands
 */
export const stats = Command.make(
  "stats",
  StatsOptions.config,
  lazyHandler(() => import("./run/stats.js"), (m) => m.run)
).pipe(
  Command.withDescription(
    "Tokens and US dollars per session, day, week, month, model, project (local days) or 5-hour window, with each row's models"
  )
)
