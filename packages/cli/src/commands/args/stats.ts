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

const byOption = Options.choice("by", StatsReport.groupings).pipe(
  Options.withDescription(
    "One row per session, local day, week (from Monday), month, model, project (its git remote, else its path), machine or OS user"
  ),
  Options.withDefault("session" as StatsReport.GroupBy)
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
  until: dayOption("until", "Up to this local day (YYYY-MM-DD or YYYYMMDD, inclusive)")
}

/**
 * What `acx stats` was given.
 *
 * @since 0.1.0
 * @category models
 */
export type StatsArgs = Command.Command.ParseConfig<typeof config>
