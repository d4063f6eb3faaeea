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
import type { CommandRun } from "../CommandSpec.js"
import { effectCommand } from "../internal/effectCommand.js"
import { withProjectKey } from "../internal/options.js"
import type { StatsOptions } from "./args/stats.js"
import { fastAnswer } from "./sessions.js"

const full: CommandRun<StatsOptions> = effectCommand(async (options, io) =>
  (await import("./run/stats.js")).run(withProjectKey(options, io))
)

/**
 * The fast answer first (`sessions.ts`' {@link fastAnswer}), else the full report.
 *
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<StatsOptions> = async (options, io) =>
  (await fastAnswer(options.from, io)) ? 0 : full(options, io)

export type { StatsOptions }
