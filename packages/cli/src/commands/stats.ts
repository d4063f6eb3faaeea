/**
 * `acx stats [--by session|day|week|month|model|project|block] [--live] [--since D] [--until D]
 * [--project P] [--json]`: tokens and US dollars per row and per model, messages, tool calls, active time and
 * wall span, subagents and compactions; subagent transcripts included, each API message counted
 * once (its last fragment). Days are local days (the time zone of the process, as ccusage).
 * Transcripts are folded on every core and cached under `$ACX_HOME/cache`. `--by block`: 5-hour
 * billing windows with burn rate and quota readings (`run/statsBlocks.ts`), `--live` redraws them.
 *
 * Grouped by what the transcripts' folds hold (session, day, week, month, model), the report is
 * made without Effect over a config directory (`internal/configDirReads.ts`: the walk, the
 * prices, the fold, the warnings, the table or JSON) and over a SQLite store
 * (`internal/storeReads.ts`: the catalog, the folds from the statistics cache; the store folds
 * what the cache lacks). Over a Postgres store, a report kept for the list the store holds now is
 * printed first (`internal/keptReport.ts`). Grouped by origin (`project`, `machine`, `user`: each
 * session's git remote, `StatsOrigins`) or by block, and over a Postgres store: `run/stats.ts`.
 *
 * @since 0.1.0
 */
import type { CommandIo } from "../CommandIo.js"
import type { CommandRun } from "../CommandSpec.js"
import { effectCommand } from "../internal/effectCommand.js"
import { withProjectKey } from "../internal/options.js"
import type { StatsOptions } from "./args/stats.js"
import { configDirReads, storeReads } from "./sessions.js"

const full: CommandRun<StatsOptions> = effectCommand(async (options, io) =>
  (await import("./run/stats.js")).run(withProjectKey(options, io))
)

// A refused `$ACX_HOME/pricing.json` in the one loader's words (`TranscriptStats.loadPricing`).
const pricingRefused = async (io: CommandIo): Promise<number> => {
  const [{ loadPricing }, { runEffect }, { acxPaths }] = await Promise.all([
    import("@acx/claude-code/TranscriptStats"),
    import("../internal/runEffect.js"),
    import("../internal/currentIo.js")
  ])
  return runEffect(io, loadPricing(acxPaths(io).pricing))
}

// The store's folds through the store (`StoreStats.foldStats`), loaded only when the cache lacks some.
const fold = async (options: StatsOptions & { readonly from: string }, io: CommandIo) =>
  (await import("./run/stats.js")).storeFolds(options, io)

// The groupings of the transcripts' folds alone (an origin grouping reads each session's git remote).
const FOLD_GROUPINGS: ReadonlyArray<string> = ["session", "day", "week", "month", "model"]

const fromStore = async (options: StatsOptions & { readonly from: string }, io: CommandIo): Promise<number> => {
  const reads = await storeReads()
  const file = reads.sqliteFile(options.from, io)
  if (file !== undefined) {
    return FOLD_GROUPINGS.includes(options.by)
      ? reads.statsOfStore(options, file, io, { fold, refused: pricingRefused })
      : full(options, io)
  }
  return (await reads.printKept(options, io)) ? 0 : full(options, io)
}

/**
 * Over a config directory grouped by the folds: `internal/configDirReads.ts` `statsOfConfigDir`;
 * over a store: {@link fromStore}; by origin or by block: `run/stats.ts`.
 *
 * @since 0.6.0
 * @category commands
 */
export const run: CommandRun<StatsOptions> = async (options, io) =>
  options.from !== undefined
    ? fromStore({ ...options, from: options.from }, io)
    : FOLD_GROUPINGS.includes(options.by)
    ? (await configDirReads()).statsOfConfigDir(options, io, pricingRefused)
    : full(options, io)
