/**
 * What `acx search` takes: its options and arguments, and the type of what a run is given
 * (`run/search.ts` reads that type from here, so the command and its run never import each other).
 *
 * @since 0.3.0
 */
import * as Args from "@effect/cli/Args"
import type * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { jsonOption, projectOption, storeFromOption } from "../../internal/options.js"

/**
 * The options and arguments of `acx search`.
 *
 * @since 0.3.0
 * @category options
 */
export const config = {
  query: Args.text({ name: "query" }).pipe(
    Args.withDescription(
      "Words (all must appear), \"a phrase\", -word or -\"a phrase\" to leave out; several arguments are one query (one that starts with - goes after --: hello -- -world)"
    ),
    Args.atLeast(1)
  ),
  project: projectOption,
  since: Options.text("since").pipe(
    Options.withDescription("From this local day on (YYYY-MM-DD or YYYYMMDD, inclusive)"),
    Options.optional
  ),
  role: Options.choice("role", ["user", "assistant", "tool"]).pipe(
    Options.withDescription("Only the user's prompts, the assistant's text and thinking, or tool inputs and results"),
    Options.optional
  ),
  limit: Options.integer("limit").pipe(
    Options.withAlias("n"),
    Options.withDescription("At most this many hits (default 20, at most 500)"),
    Options.optional
  ),
  json: jsonOption,
  from: storeFromOption
}

/**
 * What `acx search` was given.
 *
 * @since 0.3.0
 * @category models
 */
export type SearchArgs = Command.Command.ParseConfig<typeof config>
