/**
 * `acx stats [--by session|day|week|month|model|project] [--since D] [--until D] [--project P]
 * [--json]`: tokens and US dollars per row and per model, messages, tool calls, active time and
 * wall span, subagents and compactions; subagent transcripts included, each API message counted
 * once (its last fragment). Days are local days (the time zone of the process, as ccusage).
 * Transcripts are folded on every core and cached under `$ACX_HOME/cache`. What it does:
 * `run/stats.ts`.
 *
 * @since 0.1.0
 */
import * as StatsReport from "@acx/convert/StatsReport"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { lazyHandler } from "../internal/lazyHandler.js"
import { configDirOption, followSymlinksOption, jsonOption, projectOption } from "../internal/options.js"

const dayOption = (name: string, description: string) =>
  Options.text(name).pipe(Options.withDescription(description), Options.optional)

const byOption = Options.choice("by", StatsReport.groupings).pipe(
  Options.withDescription("One row per session, local day, week (from Monday), month, model or project"),
  Options.withDefault("session" as StatsReport.GroupBy)
)

const config = {
  configDir: configDirOption,
  project: projectOption,
  json: jsonOption,
  by: byOption,
  followSymlinks: followSymlinksOption,
  since: dayOption("since", "From this local day on (YYYY-MM-DD or YYYYMMDD, inclusive)"),
  until: dayOption("until", "Up to this local day (YYYY-MM-DD or YYYYMMDD, inclusive)")
}

/**
 * What `acx stats` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type StatsArgs = Command.Command.ParseConfig<typeof config>

/**
 * @since 0.1.0
 * @category commands
 */
export const stats = Command.make("stats", config, lazyHandler(() => import("./run/stats.js"), (m) => m.run)).pipe(
  Command.withDescription(
    "Tokens and US dollars per session, day, week, month, model or project (local days), with each row's models"
  )
)
