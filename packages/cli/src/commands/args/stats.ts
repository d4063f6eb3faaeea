/**
 * What `acx stats` takes: its options and arguments, and the type of what a run is given
 * (`run/stats.ts` reads that type from here, so the command and its run never import each other).
 *
 * @since 0.1.0
 */
import * as StatsReport from "@acx/convert/StatsReport"
import type * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { configDirOption, followSymlinksOption, fromOption, jsonOption, projectOption } from "../../internal/options.js"

const dayOption = (name: string, description: string) =>
  Options.text(name).pipe(Options.withDescription(description), Options.optional)

/**
 * What `--by` takes: the report's groupings, and `block` (5-hour billing windows, a report of
 * their own: `@acx/claude-code/BlockStats`).
 *
 * @since 0.3.0
 * @category options
 */
export const groupings = [...StatsReport.groupings, "block"] as const

/**
 * A `--by` value.
 *
 * @since 0.3.0
 * @category options
 */
export type By = StatsReport.GroupBy | "block"

const byOption = Options.choice("by", groupings).pipe(
  Options.withDescription(
    "One row per session, local day, week (from Monday), month, model, project (its git remote, else its path), machine, OS user, or 5-hour billing window (block)"
  ),
  Options.withDefault("session" as By)
)

/**
 * The options and arguments of `acx stats`.
 *
 * @since 0.1.0
 * @category options
 */
export const config = {
  configDir: configDirOption,
  from: fromOption,
  project: projectOption,
  json: jsonOption,
  by: byOption,
  followSymlinks: followSymlinksOption,
  since: dayOption("since", "From this local day on (YYYY-MM-DD or YYYYMMDD, inclusive)"),
  until: dayOption("until", "Up to this local day (YYYY-MM-DD or YYYYMMDD, inclusive)"),
  live: Options.boolean("live").pipe(
    Options.withDescription(
      "With --by block: redraw the windows as transcripts grow (one line per refresh when not a terminal); Ctrl-C ends"
    )
  ),
  interval: Options.integer("interval").pipe(
    Options.withDescription("With --live: seconds between refreshes (default 2)"),
    Options.withDefault(2)
  )
}

/**
 * What `acx stats` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type StatsArgs = Command.Command.ParseConfig<typeof config>
