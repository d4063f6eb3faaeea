/**
 * `acx stats --by block [--live]` (its options: `../stats.ts`): the 5-hour billing windows
 * (`@acx/claude-code/BlockStats`) with the quota readings the statusline recorded, as a table or
 * `--json`. `--live` folds again every `--interval` seconds (the statistics cache keeps each
 * file's fold: a tick reads only what was appended) and redraws in place on a terminal, or
 * prints the "now" line once per refresh when not; Ctrl-C (or SIGTERM) ends it with exit 0 and
 * the cursor shown again.
 *
 * @since 0.3.0
 */
import * as BlockStats from "@acx/claude-code/BlockStats"
import type * as StatsOutput from "@acx/claude-code/StatsOutput"
import type * as StatsReport from "@acx/convert/StatsReport"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as CliError from "../../CliError.js"
import type { CommandIo } from "../../CommandIo.js"
import { blocksTable, nowLine } from "../../internal/blocksTable.js"
import { acxPaths, CurrentIo } from "../../internal/currentIo.js"
import * as format from "../../internal/format.js"
import { listenForSignal } from "../../internal/signals.js"
import type { StatsOptions } from "../args/stats.js"

const HIDE_CURSOR = "\u001b[?25l"
const SHOW_CURSOR = "\u001b[?25h"
// to the top-left, then clear to the end of the screen
const HOME_AND_CLEAR = "\u001b[H\u001b[J"

const report = (folds: StatsOutput.StatsFolds, range: StatsReport.DayRange, io: CommandIo) => {
  const read = BlockStats.readReadings(acxPaths(io).quotaReadings)
  return { report: BlockStats.blockReport(folds, { range, nowMs: Date.now(), readings: read.readings }), read }
}

const warnings = (folds: StatsOutput.StatsFolds, warning: string | undefined) =>
  Effect.gen(function*() {
    for (const skipped of folds.run.skipped) {
      yield* Console.error(`acx: warning: skipped ${skipped.file}: ${skipped.reason}`)
    }
    if (folds.run.cacheWarning !== undefined) yield* Console.error(`acx: warning: ${folds.run.cacheWarning}`)
    if (warning !== undefined) yield* Console.error(`acx: warning: ${warning}`)
  })

/**
 * The windows once, as a table or JSON.
 *
 * @since 0.3.0
 * @category handlers
 */
export const runOnce = <E, R>(
  args: StatsOptions,
  range: StatsReport.DayRange,
  fold: Effect.Effect<StatsOutput.StatsFolds, E, R>
) =>
  Effect.gen(function*() {
    const folds = yield* fold
    const { read, report: blocks } = report(folds, range, yield* CurrentIo)
    yield* warnings(folds, read.warning)
    if (args.json) return yield* Console.log(format.json(BlockStats.blockJson(blocks, folds.pricing)))
    if (blocks.rows.length === 0) return yield* Console.log("no windows: no message with usage")
    yield* Console.log(blocksTable(blocks))
  })

/**
 * Redraws the windows every `--interval` seconds until Ctrl-C / SIGTERM.
 *
 * @since 0.3.0
 * @category handlers
 */
export const runLive = <E, R>(
  args: StatsOptions,
  range: StatsReport.DayRange,
  fold: Effect.Effect<StatsOutput.StatsFolds, E, R>
) =>
  Effect.gen(function*() {
    if (args.interval < 1) return yield* CliError.invalidArgument("--interval: at least 1 second")
    const io = yield* CurrentIo
    const tty = io.isTTY && !args.json
    let warned = false
    const tick = Effect.gen(function*() {
      const folds = yield* fold
      const { read, report: blocks } = report(folds, range, io)
      // warnings once: a live view repeats itself every tick
      if (!warned) yield* warnings(folds, read.warning)
      warned = true
      if (args.json) {
        const json = BlockStats.blockJson(blocks, folds.pricing)
        return yield* Console.log(JSON.stringify({ ...json, rows: json.rows.filter((row) => row.active) }))
      }
      if (!tty) return yield* Console.log(nowLine(blocks))
      const recent = { ...blocks, rows: blocks.rows.slice(-Math.max(3, (process.stdout.rows ?? 24) - 8)) }
      yield* Effect.promise(() => io.stdout(`${HOME_AND_CLEAR}${blocksTable(recent)}\n`))
    })
    const loop = Effect.forever(Effect.zipRight(tick, Effect.sleep(Duration.seconds(args.interval))))
    const restore = Effect.sync(() => {
      if (tty) void io.stdout(SHOW_CURSOR)
    })
    // listening before the cursor is hidden: a Ctrl-C at any moment after is answered
    const stopped = yield* listenForSignal
    if (tty) yield* Effect.promise(() => io.stdout(HIDE_CURSOR))
    yield* Effect.raceFirst(loop, stopped).pipe(Effect.ensuring(restore))
  }).pipe(Effect.scoped)
